// What only the pg-boss engine does: it keeps a dead letter's tries across a worker that dies mid-event (its hold
// runs out, the reaper hands the job back, and the tries before must still be listed), and it writes concurrent
// deliveries as multi-row inserts, and its fetch cursor loses no event that fell due behind it.
import type { InboxMessage } from "@kirimbayar/core/webhooks";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import PgBoss from "pg-boss";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPgBossInbox } from "../src/engines/pg-boss.js";
import type { InboxDelivery, InboxVerdict } from "../src/types.js";

let server: TestPostgresServer;
let boss: PgBoss;
beforeAll(async () => {
  server = await startPostgresServer();
  boss = new PgBoss({ connectionString: server.url, max: 8, schedule: false });
  boss.on("error", () => {});
  await boss.start();
}, 60_000);
afterAll(async () => {
  await boss?.stop({ graceful: false, wait: true, timeout: 2_000 }).catch(() => {});
  await server?.destroy();
}, 30_000);

it("lists every try of a dead letter, including those before a try whose worker died", async () => {
  const inbox = await createPgBossInbox({
    boss,
    name: "expired",
    expireInSeconds: 1,
    reapIntervalMs: 200,
    pollingIntervalMs: 50,
    logger: { warn: () => {} },
  });
  const message: InboxMessage = {
    key: "qris:payment.success:expired-1",
    source: "qris",
    body: "{}",
    receivedAt: Date.now(),
  };
  await inbox.enqueue(message);
  // Try 1 fails; try 2 is taken by a worker that dies at once (a bare pg-boss fetch: no heartbeat, no verdict);
  // try 3 is dead.
  let decided = 0;
  const decide = async ({ attempt }: InboxDelivery): Promise<InboxVerdict> => {
    decided += 1;
    if (attempt === 1) return { kind: "retry", error: "first failure", delayMs: 60_000 };
    return { kind: "dead", error: "third failure" };
  };
  const first = await inbox.consume(decide, { concurrency: 1 });
  for (let i = 0; i < 100 && decided === 0; i++) await new Promise((r) => setTimeout(r, 50));
  await first.stop({ timeoutMs: 5_000 });
  expect(decided).toBe(1);
  // The retry is due in a minute; the dying worker takes it at once.
  await boss.getDb().executeSql("UPDATE pgboss.job SET start_after = now() WHERE name = 'expired'", []);
  const [taken] = await boss.fetch("expired", { includeMetadata: true });
  expect(taken?.retryCount).toBe(1);
  const second = await inbox.consume(decide, { concurrency: 1 });
  try {
    for (let i = 0; i < 200 && (await inbox.stats()).deadLetters === 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    const [letter] = await inbox.listDeadLetters();
    expect(letter?.attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(letter?.attempts[0]?.error).toBe("first failure");
    expect(letter?.attempts[1]?.error).toMatch(/^no verdict/);
    expect(letter?.attempts[2]?.error).toBe("third failure");
    expect(decided).toBe(2);
  } finally {
    await second.stop({ timeoutMs: 1_000 });
  }
}, 60_000);

it("writes concurrent deliveries as a few multi-row inserts, one job per key", async () => {
  let inserts = 0;
  let sends = 0;
  const counted = new Proxy(boss, {
    get(target, property, receiver) {
      if (property === "insert") inserts += 1;
      if (property === "send") sends += 1;
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const inbox = await createPgBossInbox({ boss: counted, name: "batched" });
  const message = (n: number): InboxMessage => ({
    key: `qris:payment.success:batched-${n % 150}`, // 50 keys delivered twice
    source: "qris",
    body: "{}",
    receivedAt: Date.now(),
  });
  const answers = await Promise.all(Array.from({ length: 200 }, (_, n) => inbox.enqueue(message(n))));
  expect(new Set(answers)).toEqual(new Set(["queued"]));
  expect((await inbox.stats()).waiting).toBe(150);
  expect(sends).toBe(0);
  expect(inserts).toBeGreaterThan(0);
  expect(inserts).toBeLessThanOrEqual(10);
}, 60_000);

it("takes an event that fell due before the fetch cursor (a late commit) too", async () => {
  const inbox = await createPgBossInbox({
    boss,
    name: "cursor",
    fetchBatchSize: 5,
    pollingIntervalMs: 50,
    logger: { warn: () => {} },
  });
  const message = (key: string): InboxMessage => ({ key, source: "qris", body: "{}", receivedAt: Date.now() });
  for (let i = 0; i < 30; i++) await inbox.enqueue(message(`qris:payment.success:cursor-${i}`));
  const seen = new Set<string>();
  let late = false;
  const consumer = await inbox.consume(
    async ({ message: m }) => {
      if (!late) {
        // Queued now but due an hour ago, as a transaction that began then and committed late: behind the cursor.
        late = true;
        await inbox.enqueue(message("qris:payment.success:cursor-late"));
        await boss
          .getDb()
          .executeSql(
            "UPDATE pgboss.job SET start_after = now() - interval '1 hour' WHERE name = 'cursor' AND state = 'created' AND data->'message'->>'key' = $1",
            ["qris:payment.success:cursor-late"],
          );
      }
      await new Promise((r) => setTimeout(r, 5));
      seen.add(m.key);
      return { kind: "done" };
    },
    { concurrency: 5 },
  );
  try {
    for (let i = 0; i < 300 && seen.size < 31; i++) await new Promise((r) => setTimeout(r, 50));
    expect(seen.size).toBe(31);
    expect(seen.has("qris:payment.success:cursor-late")).toBe(true);
  } finally {
    await consumer.stop({ timeoutMs: 2_000 });
  }
}, 60_000);
