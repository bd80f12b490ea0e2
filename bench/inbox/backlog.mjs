// Filling an inbox queue with a backlog for bench/inbox, outside the timed window: pg-boss's queue with one
// INSERT ... SELECT generate_series (the rows `enqueue` writes: same columns and options, 500,000 in seconds rather
// than 500 multi-row inserts of 1,000, whose timestamps it reproduces), BullMQ's through `inbox.enqueue` (50 at a
// time).
import { createBullMqInbox } from "@kirimbayar/inbox/bullmq";
import { createPgBossInbox } from "@kirimbayar/inbox/pg-boss";

/** The order-status event number `i` of a fill tagged `tag` (what `enqueue` would carry). */
export function backlogMessage(tag, i, receivedAt = Date.now()) {
  return {
    key: `orders:${tag}:${i}`,
    source: "orders",
    body: JSON.stringify({ order_no: `ORD-W-${tag}-${i}`, cnote: `JP${i}`, status: "Dikirim" }),
    receivedAt,
  };
}

/**
 * Creates the queue (and its dead-letter queue) and writes `events` jobs in one statement: the job options of
 * `createPgBossInbox`'s enqueue (retry limit 1,000,000, retry delay 1 s without backoff, hold 30 s, kept 30 days).
 * Their creation and due times are those of 1,000-row inserts made one after another (as the benchmark filled the
 * queue before, and as an outage's deliveries arrive: not all in the same microsecond), 1 ms apart, oldest first.
 */
export async function fillPgBoss(boss, name, events, tag) {
  await createPgBossInbox({ boss, name });
  await boss.getDb().executeSql(
    `INSERT INTO pgboss.job (id, name, data, expire_in, keep_until, retry_limit, retry_delay, retry_backoff, policy,
                             created_on, start_after)
     SELECT gen_random_uuid(), $1,
            jsonb_build_object('message', jsonb_build_object(
              'key', 'orders:' || $2 || ':' || i,
              'source', 'orders',
              'body', jsonb_build_object('order_no', 'ORD-W-' || $2 || '-' || i, 'cnote', 'JP' || i, 'status', 'Dikirim')::text,
              'receivedAt', $4::bigint)),
            interval '30 seconds', now() + interval '30 days', 1000000, 1, false,
            (SELECT policy FROM pgboss.queue WHERE name = $1),
            now() - (($3::int - i) / 1000 + 1) * interval '1 millisecond',
            now() - (($3::int - i) / 1000 + 1) * interval '1 millisecond'
       FROM generate_series(1, $3::int) AS i`,
    [name, tag, events, Date.now()],
  );
}

/** Writes `events` jobs through the BullMQ inbox's own `enqueue`, 50 at a time. */
export async function fillBullMq(port, name, events, tag) {
  const inbox = await createBullMqInbox({ connection: { host: "127.0.0.1", port }, name });
  const receivedAt = Date.now();
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < events) await inbox.enqueue(backlogMessage(tag, next++, receivedAt));
      }),
    );
  } finally {
    await inbox.close();
  }
}

/** Empties a pg-boss queue and its dead-letter queue and deletes them (TRUNCATE of their partitions: fast at 500k). */
export async function dropPgBossQueue(boss, name) {
  for (const queue of [name, `${name}-dead`]) {
    const { rows } = await boss.getDb().executeSql("SELECT partition_name FROM pgboss.queue WHERE name = $1", [queue]);
    const partition = rows[0]?.partition_name;
    if (typeof partition === "string") await boss.getDb().executeSql(`TRUNCATE pgboss."${partition}"`, []);
    await boss.deleteQueue(queue);
  }
}
