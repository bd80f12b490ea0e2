// BullMQ: a held event is never stranded by a failed call. A completion Redis refuses (the event's lock was lost, as
// after an outage longer than the lock) leaves the event active without a lock: BullMQ's stalled check hands it back
// and the worker runs it again (the idempotency store then answers "already applied"). A completion sent while
// Redis is down waits for it and is carried out once it is back, without running the event again. On a real
// redis-server with AOF `appendfsync always`, SIGKILLed for the outage.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBullMqInbox } from "../src/engines/bullmq.js";
import type { InboxDelivery, InboxQueue, InboxVerdict } from "../src/types.js";

let redis: TestRedisServer;
let raw: Redis;
let dataDir: string;
const opened: InboxQueue[] = [];
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "kirimbayar-bullmq-settle-"));
  redis = await startRedisServer({
    args: ["--appendonly", "yes", "--appendfsync", "always", "--dir", dataDir, "--appendfilename", "settle.aof"],
  });
  raw = new Redis(redis.port, "127.0.0.1", { maxRetriesPerRequest: null });
  raw.on("error", () => {});
}, 30_000);
afterAll(async () => {
  for (const inbox of opened) await inbox.close().catch(() => {});
  raw?.disconnect();
  await redis?.stop();
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const message = (key: string) => ({ key, source: "qris" as const, body: "{}", receivedAt: Date.now() });

async function inboxNamed(name: string): Promise<InboxQueue> {
  const inbox = await createBullMqInbox({
    connection: { host: "127.0.0.1", port: redis.port },
    name,
    lockDurationMs: 2_000,
    stalledIntervalMs: 500,
  });
  opened.push(inbox);
  return inbox;
}

async function until(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not reached in ${timeoutMs} ms`);
    await sleep(50);
  }
}

it("an event whose completion Redis refuses (its lock lost) comes back through the stalled check and runs again", async () => {
  const name = `settle-lost-lock-${process.pid}`;
  const inbox = await inboxNamed(name);
  const tries: number[] = [];
  const consumer = await inbox.consume(async (delivery: InboxDelivery): Promise<InboxVerdict> => {
    tries.push(delivery.attempt);
    if (tries.length === 1) {
      // The lock is gone before the completion: Redis answers "missing lock" to moveToCompleted.
      await raw.del(`bull:${name}:${delivery.message.key}:lock`);
    }
    return { kind: "done" };
  });
  try {
    await inbox.enqueue(message("lost-lock"));
    await until(async () => tries.length >= 2, 10_000);
    await until(async () => {
      const stats = await inbox.stats();
      return stats.waiting === 0 && stats.active === 0;
    }, 10_000);
    expect(tries).toHaveLength(2);
    expect(await raw.zscore(`bull:${name}:completed`, "lost-lock")).not.toBeNull();
  } finally {
    await consumer.stop({ timeoutMs: 2_000 });
  }
}, 30_000);

it("a completion sent while Redis is down is carried out once Redis is back, the event not run again", async () => {
  const name = `settle-outage-${process.pid}`;
  const inbox = await inboxNamed(name);
  const tries: string[] = [];
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const consumer = await inbox.consume(async (delivery): Promise<InboxVerdict> => {
    tries.push(delivery.message.key);
    await gate; // the handler finishes while Redis is away
    return { kind: "done" };
  });
  try {
    await inbox.enqueue(message("during-outage"));
    await until(() => tries.length === 1, 10_000);
    await redis.crash();
    release();
    await sleep(1_000);
    await redis.start();
    const back = Date.now();
    await until(async () => (await raw.zscore(`bull:${name}:completed`, "during-outage")) !== null, 10_000);
    expect(Date.now() - back).toBeLessThan(5_000);
    expect(tries).toEqual(["during-outage"]);
  } finally {
    await consumer.stop({ timeoutMs: 2_000 });
  }
}, 30_000);

it("a handler slower than the lock keeps its event: the lock is renewed, the event never runs twice at once", async () => {
  const name = `settle-slow-${process.pid}`;
  const inbox = await createBullMqInbox({
    connection: { host: "127.0.0.1", port: redis.port },
    name,
    lockDurationMs: 1_000,
    stalledIntervalMs: 200,
  });
  opened.push(inbox);
  const tries: number[] = [];
  const consumer = await inbox.consume(async (delivery): Promise<InboxVerdict> => {
    tries.push(delivery.attempt);
    await sleep(3_500); // 3.5 locks long, 17 stalled checks
    return { kind: "done" };
  });
  try {
    await inbox.enqueue(message("slow"));
    await until(async () => (await raw.zscore(`bull:${name}:completed`, "slow")) !== null, 15_000);
    expect(tries).toEqual([1]);
  } finally {
    await consumer.stop({ timeoutMs: 2_000 });
  }
}, 30_000);
