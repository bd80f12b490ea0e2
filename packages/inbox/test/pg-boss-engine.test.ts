// What only the pg-boss engine does: it keeps a dead letter's tries across a worker that dies mid-event (the job
// expires, pg-boss replaces its output with "job failed by timeout in active state", and the tries before must still
// be listed), and it writes concurrent deliveries as multi-row inserts.
import type { InboxMessage } from "@kirimbayar/core/webhooks";
import { startPostgresServer } from "@kirimbayar/test-postgres-server";
import PgBoss from "pg-boss";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPgBossInbox } from "../src/engines/pg-boss.js";
import type { InboxDelivery, InboxVerdict } from "../src/types.js";
import { type EngineUnderTest, pgBossEngine } from "./engines.js";

let engine: EngineUnderTest;
beforeAll(async () => {
  engine = await pgBossEngine();
}, 60_000);
afterAll(async () => {
  await engine?.close();
}, 30_000);

it("lists every try of a dead letter, including those before a try whose worker died", async () => {
  const inbox = await engine.inbox(); // expireInSeconds 2, maintenance every second
  const message: InboxMessage = {
    key: "qris:payment.success:expired-1",
    source: "qris",
    body: "{}",
    receivedAt: Date.now(),
  };
  await inbox.enqueue(message);
  // Try 1 fails; try 2 never ends (its worker "died": the job expires); try 3 is dead.
  const hung = new Promise<InboxVerdict>(() => {});
  const decide = async ({ attempt }: InboxDelivery): Promise<InboxVerdict> => {
    if (attempt === 1) return { kind: "retry", error: "first failure", delayMs: 0 };
    if (attempt === 2) return hung;
    return { kind: "dead", error: "third failure" };
  };
  const stuck = await inbox.consume(decide, { concurrency: 1 });
  for (let i = 0; i < 100 && (await inbox.stats()).active === 0; i++) await new Promise((r) => setTimeout(r, 100));
  // The first consumer is stuck in try 2; a second one takes the job once it expired.
  const second = await inbox.consume(decide, { concurrency: 1 });
  try {
    for (let i = 0; i < 200 && (await inbox.stats()).deadLetters === 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    const [letter] = await inbox.listDeadLetters();
    expect(letter?.attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(letter?.attempts[0]?.error).toBe("first failure");
    expect(letter?.attempts[2]?.error).toBe("third failure");
  } finally {
    await second.stop({ timeoutMs: 1_000 });
    await stuck.stop({ timeoutMs: 100 });
  }
}, 60_000);

it("writes concurrent deliveries as a few multi-row inserts, one job per key", async () => {
  const server = await startPostgresServer();
  const boss = new PgBoss({ connectionString: server.url, max: 4, schedule: false });
  boss.on("error", () => {});
  await boss.start();
  try {
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
  } finally {
    await boss.stop({ graceful: false, wait: true, timeout: 2_000 }).catch(() => {});
    await server.destroy();
  }
}, 60_000);
