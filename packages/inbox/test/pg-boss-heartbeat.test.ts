// The hold a pg-boss inbox worker keeps on its events: a handler slower than the hold (expireInSeconds) keeps its
// event, renewed by the worker's heartbeat, so no other worker (nor pg-boss's own maintenance) runs it at the same
// time.
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import PgBoss from "pg-boss";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPgBossInbox } from "../src/engines/pg-boss.js";
import type { InboxDelivery, InboxVerdict } from "../src/types.js";

let server: TestPostgresServer;
let boss: PgBoss;

beforeAll(async () => {
  server = await startPostgresServer();
  // pg-boss's maintenance expires jobs every second too: the heartbeat must hold against it as well.
  boss = new PgBoss({ connectionString: server.url, max: 8, schedule: false, maintenanceIntervalSeconds: 1 });
  boss.on("error", () => {});
  await boss.start();
}, 60_000);
afterAll(async () => {
  await boss?.stop({ graceful: false, wait: true, timeout: 2_000 }).catch(() => {});
  await server?.destroy();
}, 30_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it("never runs a handler slower than the hold twice at once: the heartbeat keeps the event", async () => {
  const name = "slow";
  // Hold 1 s, renewed every 250 ms; two workers, each reaping expired holds every 100 ms.
  const options = { boss, name, expireInSeconds: 1, heartbeatIntervalMs: 250, reapIntervalMs: 100 } as const;
  const inbox = await createPgBossInbox({ ...options, pollingIntervalMs: 50, logger: { warn: () => {} } });
  const keys = ["qris:payment.success:slow-1", "qris:payment.success:slow-2"];
  for (const key of keys) await inbox.enqueue({ key, source: "qris", body: "{}", receivedAt: Date.now() });
  const running = new Map<string, number>();
  const runs = new Map<string, number>();
  let mostAtOnce = 0;
  const decide = async ({ message }: InboxDelivery): Promise<InboxVerdict> => {
    runs.set(message.key, (runs.get(message.key) ?? 0) + 1);
    running.set(message.key, (running.get(message.key) ?? 0) + 1);
    mostAtOnce = Math.max(mostAtOnce, running.get(message.key) ?? 0);
    await sleep(3_500); // three and a half holds
    running.set(message.key, (running.get(message.key) ?? 0) - 1);
    return { kind: "done" };
  };
  const first = await inbox.consume(decide, { concurrency: 2 });
  const deadline = Date.now() + 10_000;
  while (runs.size < keys.length && Date.now() < deadline) await sleep(20);
  const second = await inbox.consume(decide, { concurrency: 2 });
  try {
    while ((await inbox.stats()).active + (await inbox.stats()).waiting > 0 && Date.now() < deadline + 10_000)
      await sleep(50);
    expect(await inbox.stats()).toMatchObject({ waiting: 0, active: 0 });
  } finally {
    await second.stop({ timeoutMs: 5_000 });
    await first.stop({ timeoutMs: 5_000 });
  }
  expect(mostAtOnce).toBe(1);
  expect(Object.fromEntries(runs)).toEqual(Object.fromEntries(keys.map((key) => [key, 1])));
}, 60_000);
