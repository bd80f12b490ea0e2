// BullMQ: an event Redis gave a worker whose answer an outage swallowed (the fetch ran, the reply never came) is handed
// back within seconds of Redis's return, not when its 30 s lock expires; the events the worker's processor holds, and
// those another worker locked, are left alone. On a real redis-server; the lost answer is made by fetching with the
// worker's token outside its processor (what a lost reply leaves behind), the outage by the worker's close event.
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { watchLostFetches } from "../src/engines/bullmq/lost-fetches.js";

let redis: TestRedisServer;
const closers: (() => Promise<unknown> | unknown)[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
}, 30_000);
afterAll(async () => {
  for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => {});
  await redis?.stop();
}, 30_000);

const connection = () => ({ host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function stateOf(queue: Queue, id: string): Promise<string> {
  const job = await queue.getJob(id);
  return job === undefined ? "missing" : await job.getState();
}

it("hands back, after an outage, the events fetched with this worker's token that its processor never took", async () => {
  const name = `lost-fetches-${process.pid}`;
  const queue = new Queue(name, { connection: connection() });
  closers.push(() => queue.close());
  // autorun off: the test fetches by hand, as BullMQ's loop would, and no processor ever takes these events.
  const worker = new Worker(name, null, { connection: connection(), autorun: false, lockDuration: 30_000 });
  const other = new Worker(name, null, { connection: connection(), autorun: false, lockDuration: 30_000 });
  for (const w of [worker, other]) {
    w.on("error", () => {});
    closers.push(() => w.close(true));
  }
  await Promise.all([queue.waitUntilReady(), worker.waitUntilReady(), other.waitUntilReady()]);
  for (const id of ["lost", "held", "others"]) await queue.add("event", { id }, { jobId: id });

  const fetched = new Map<string, string>();
  for (const [w, token] of [
    [worker, `${worker.id}:1`],
    [worker, `${worker.id}:2`],
    [other, `${other.id}:1`],
  ] as const) {
    const job = await w.getNextJob(token);
    fetched.set(String(job?.id), token);
  }
  expect([...fetched.keys()].sort()).toEqual(["held", "lost", "others"]);
  for (const id of fetched.keys()) expect(await stateOf(queue, id)).toBe("active");

  const held = new Set(["held"]); // the worker's processor runs this one
  const rescueClient = new Redis({ ...connection(), maxRetriesPerRequest: 0, enableOfflineQueue: false });
  rescueClient.on("error", () => {});
  const watch = watchLostFetches({ worker, queue, redis: rescueClient, held, retryMs: 200, confirmMs: 500 });
  closers.push(() => watch.close());

  // No outage, nothing handed back: a lost answer needs a closed connection.
  await sleep(1_000);
  expect(await stateOf(queue, "lost")).toBe("active");

  const outageEndedAt = Date.now();
  worker.emit("ioredis:close");
  const deadline = Date.now() + 10_000;
  while ((await stateOf(queue, "lost")) === "active" && Date.now() < deadline) await sleep(50);
  expect(await stateOf(queue, "lost")).toBe("waiting");
  expect(Date.now() - outageEndedAt).toBeLessThan(5_000); // not the lock's 30 s
  expect(watch.rescued).toBe(1);
  // Held by the processor, or locked by another worker: untouched, lock intact.
  expect(await stateOf(queue, "held")).toBe("active");
  expect(await stateOf(queue, "others")).toBe("active");
  expect(await rescueClient.get(queue.toKey("held:lock"))).toBe(fetched.get("held"));
  expect(await rescueClient.get(queue.toKey("others:lock"))).toBe(fetched.get("others"));
}, 30_000);
