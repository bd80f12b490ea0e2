// What only the pg-boss engine does: it keeps a dead letter's tries across a worker that dies mid-event (its hold
// runs out, the reaper hands the job back, and the tries before must still be listed), and it writes concurrent
// deliveries as multi-row inserts.
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
