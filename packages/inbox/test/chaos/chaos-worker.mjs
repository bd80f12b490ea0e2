// One inbox worker process of the chaos campaign (inbox-chaos.test.ts starts two and SIGKILLs them at random).
// It builds the worker side of a shop from the built packages (dist of @kirimbayar/inbox and @kirimbayar/core):
// a qris receiver with the shared PostgreSQL idempotency store in transactional mode, whose handler writes the
// payment's effect (a row of <schema>.effects) in the same transaction as the idempotency record, and
// startInboxWorker on the campaign's queue. The handler fails while <schema>.control says the shop is broken (the
// "2 hours" outage) and, for the poisoned payments, until the operator fixes them.
//
// Settings come as JSON in CHAOS_WORKER (see inbox-chaos.test.ts and recovery.ts). With `defaults: true` the engine
// runs on its default settings (the inbox's and pg-boss's hold, polling and maintenance; BullMQ's lock and stalled
// check), as the recovery scenarios require; `workMs` is the handler's work inside its transaction (default 0-3 ms).
// Over IPC it sends `ready` once it takes events, then `stats` every 100 ms (tries, failed ones, those failed by the
// outage, retry and dead verdicts, events in flight), so the parent can count what a killed process did. It exits on
// SIGTERM (graceful stop) or when the parent goes away.

import { processInboxMessage } from "@kirimbayar/core";
import { PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { createWebhookReceiver } from "@kirimbayar/core/webhooks";
import { startInboxWorker } from "@kirimbayar/inbox";
import pg from "pg";

const settings = JSON.parse(process.env.CHAOS_WORKER ?? "{}");
const { engine, pgUrl, redisPort, queue, schema, name, retry, concurrency, defaults = false } = settings;
const workMs = settings.workMs ?? { min: 0, max: 3 };
if (process.send === undefined) throw new Error("chaos-worker runs as a forked child with an IPC channel");

const stats = { tries: 0, retries: 0, dead: 0, inFlight: 0, failures: 0, outageFailures: 0 };
const OUTAGE_ERROR = "the shop's order service is down";
const report = (type) => process.send?.({ type, name, pid: process.pid, ...stats });
const closers = [];

// The parent died or ended the campaign: nothing must outlive it.
process.on("disconnect", () => process.exit(0));

const pool = new pg.Pool({ connectionString: pgUrl, max: concurrency + 2, connectionTimeoutMillis: 2_000 });
pool.on("error", () => {});
closers.push(() => pool.end());

let inbox;
if (engine === "pg-boss") {
  const { default: PgBoss } = await import("pg-boss");
  const { createPgBossInbox } = await import("@kirimbayar/inbox/pg-boss");
  const boss = new PgBoss(
    defaults
      ? { connectionString: pgUrl, max: 4 }
      : { connectionString: pgUrl, max: 4, maintenanceIntervalSeconds: 1, schedule: false },
  );
  boss.on("error", () => {});
  await boss.start();
  closers.push(() => boss.stop({ graceful: false, wait: true, timeout: 2_000 }));
  inbox = await createPgBossInbox(
    defaults ? { boss, name: queue } : { boss, name: queue, pollingIntervalMs: 100, expireInSeconds: 2 },
  );
} else {
  const { createBullMqInbox } = await import("@kirimbayar/inbox/bullmq");
  const connection = { host: "127.0.0.1", port: redisPort };
  inbox = await createBullMqInbox(
    defaults ? { connection, name: queue } : { connection, name: queue, lockDurationMs: 2_000, stalledIntervalMs: 500 },
  );
  closers.push(() => inbox.close());
}

const qris = createWebhookReceiver({
  source: "qris",
  insecureNoVerification: true, // the web instances verified the token before queueing
  idempotency: {
    store: new PostgresIdempotencyStore({ pool, table: `${schema}.idempotency` }),
    transactional: true,
    operationTimeoutMs: 2_000,
  },
  logger: { warn: () => {}, error: () => {} },
}).on("payment.success", async (event, ctx) => {
  const id = String(event.data.qris_history_id);
  const tx = ctx.transaction;
  const { rows } = await tx.query(
    `SELECT c.broken, EXISTS (SELECT 1 FROM ${schema}.poison p WHERE p.payment_id = $1 AND NOT c.poison_fixed) AS poisoned
       FROM ${schema}.control c`,
    [id],
  );
  if (rows[0]?.broken) throw new Error(OUTAGE_ERROR);
  if (rows[0]?.poisoned) throw new Error(`payment ${id} hits a bug in the handler`);
  // A little work inside the transaction, so that kills land mid-event too.
  await new Promise((resolve) => setTimeout(resolve, workMs.min + Math.random() * (workMs.max - workMs.min)));
  await tx.query(`INSERT INTO ${schema}.effects (payment_id, amount, worker) VALUES ($1, $2, $3)`, [
    id,
    Number(event.data.amount),
    `${name}/${process.pid}`,
  ]);
});

// Counts what this process does; the worker's logger hears of every retry and dead letter.
const counted = {
  source: "qris",
  async processInboxMessage(message) {
    stats.tries += 1;
    stats.inFlight += 1;
    try {
      const result = await processInboxMessage(qris, message);
      if (result.outcome === "failed" || result.outcome === "in_progress") stats.failures += 1;
      if (result.outcome === "failed" && result.error?.message === OUTAGE_ERROR) stats.outageFailures += 1;
      return result;
    } finally {
      stats.inFlight -= 1;
    }
  },
};
const worker = await startInboxWorker({
  inbox,
  receivers: { qris: counted },
  concurrency,
  retry,
  logger: {
    warn: () => {
      stats.retries += 1;
    },
    error: () => {
      stats.dead += 1;
    },
  },
});
report("ready");
setInterval(() => report("stats"), 100);

process.on("SIGTERM", async () => {
  await worker.stop({ timeoutMs: 5_000 });
  report("stats");
  for (const close of closers) await Promise.resolve(close()).catch(() => {});
  process.exit(0);
});
