// Exactly-once over a real Redis: 1,000 events, 30 % delivered twice, 50 deliveries in flight, 10 % of first
// handler attempts failing, two receivers (different processes in production) sharing one Redis.

import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import IORedis from "ioredis";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisIdempotencyStore } from "../src/redis.js";
import { createWebhookReceiver, type IdempotencyStore, tokenVerifier, type WebhookReceiver } from "../src/webhooks.js";
import { qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const TOKEN = "exactly-once-token";
const EVENTS = 1_000;
const DUPLICATE_SHARE = 0.3;
const FAILING_FIRST_ATTEMPTS = 0.1;
const CONCURRENCY = 50;
const MAX_ATTEMPTS_PER_DELIVERY = 60;

let redis: TestRedisServer;
const closers: (() => unknown)[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  for (const close of closers) await close();
  await redis?.stop();
});

// Deterministic pseudo-random numbers so a failure can be replayed.
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

async function ioredisStore(prefix: string): Promise<IdempotencyStore> {
  const client = new IORedis(redis.port, "127.0.0.1", { enableOfflineQueue: false, lazyConnect: true });
  await client.connect();
  closers.push(() => client.disconnect());
  return new RedisIdempotencyStore({ client, keyPrefix: prefix });
}

async function nodeRedisStore(prefix: string): Promise<IdempotencyStore> {
  const client = createClient({ url: redis.url, disableOfflineQueue: true });
  await client.connect();
  closers.push(() => client.close());
  return new RedisIdempotencyStore({ client, keyPrefix: prefix });
}

async function runScenario(stores: [IdempotencyStore, IdempotencyStore], seed: number) {
  const next = random(seed);
  const sideEffects = new Map<string, number>();
  const attempted = new Set<string>();
  const failFirst = new Set<string>();
  const ids = Array.from({ length: EVENTS }, (_, i) => `evt-${seed}-${i}`);
  for (const id of ids) if (next() < FAILING_FIRST_ATTEMPTS) failFirst.add(id);

  const receivers: WebhookReceiver<"qris">[] = stores.map((store) =>
    createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      idempotency: { store, leaseMs: 10_000 },
      logger: { error: () => {} },
    }).on("payment.success", async (event) => {
      const id = String(event.data.qris_history_id);
      const first = !attempted.has(id);
      attempted.add(id);
      await new Promise((resolve) => setTimeout(resolve, next() * 3));
      if (first && failFirst.has(id)) throw new Error("transient failure");
      sideEffects.set(id, (sideEffects.get(id) ?? 0) + 1);
    }),
  );

  // The provider: every delivery (originals and 30 % duplicates, shuffled) is retried until it gets a 2xx.
  const deliveries = [...ids, ...ids.filter(() => next() < DUPLICATE_SHARE)];
  for (let i = deliveries.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [deliveries[i], deliveries[j]] = [deliveries[j] as string, deliveries[i] as string];
  }
  const statuses = new Map<number, number>();
  let cursor = 0;
  const deadline = Date.now() + 20_000;
  async function worker(): Promise<void> {
    while (cursor < deliveries.length) {
      const id = deliveries[cursor++] as string;
      const body = JSON.stringify(qrisSuccess({ qris_history_id: id }));
      for (let attempt = 1; ; attempt++) {
        if (attempt > MAX_ATTEMPTS_PER_DELIVERY || Date.now() > deadline)
          throw new Error(`delivery of ${id} never succeeded`);
        const receiver = receivers[Math.floor(next() * receivers.length)] as WebhookReceiver<"qris">;
        const response = await receiver.handle(webhookRequest({ url: `/qris?token=${TOKEN}`, rawBody: body }));
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status === 200) break;
        expect([409, 500]).toContain(response.status);
        await new Promise((resolve) => setTimeout(resolve, 2 + next() * 5));
      }
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { ids, deliveries, sideEffects, failFirst, statuses };
}

describe("exactly-once delivery over a real Redis", () => {
  it.each([
    ["two ioredis receivers", async () => [await ioredisStore("eo1:"), await ioredisStore("eo1:")] as const, 1],
    [
      "an ioredis and a node-redis receiver",
      async () => [await ioredisStore("eo2:"), await nodeRedisStore("eo2:")] as const,
      2,
    ],
  ])("%s", async (_name, makeStores, seed) => {
    const [first, second] = await makeStores();
    const { ids, deliveries, sideEffects, failFirst, statuses } = await runScenario([first, second], seed);

    expect(deliveries.length).toBeGreaterThan(EVENTS * 1.2);
    expect(failFirst.size).toBeGreaterThan(EVENTS * 0.05);
    for (const id of ids) expect(sideEffects.get(id), id).toBe(1);
    expect(sideEffects.size).toBe(EVENTS);
    // Every first attempt that failed was answered 500, and nothing else was.
    expect(statuses.get(500)).toBe(failFirst.size);
    expect(statuses.get(200)).toBe(deliveries.length);
  });
});
