import { RedisIdempotencyStore } from "@kirimbayar/core/redis";
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expressAdapter, honoAdapter, nestAdapter, type RunningApp } from "./adapters.js";
import { qrisPaid, secrets, sourceOptions } from "./fixtures.js";
import { HandlerRecorder } from "./recorder.js";

// Three app instances (one per adapter, as if a shop ran mixed deployments) share one real Redis: a provider
// delivering the same event to another instance must not have it processed twice.
let redis: TestRedisServer;
const clients: Redis[] = [];
let apps: RunningApp[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  for (const client of clients) client.disconnect();
  await redis?.stop();
});

async function redisStore(): Promise<() => RedisIdempotencyStore> {
  const client = new Redis(redis.url, { enableOfflineQueue: false, lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  clients.push(client);
  return () => new RedisIdempotencyStore({ client });
}

const delivery = (historyId: string) => ({
  source: "qris" as const,
  query: `?token=${secrets.qrisToken}`,
  headers: { "content-type": "application/json" },
  body: qrisPaid(historyId),
});

describe("instances sharing one Redis", () => {
  it("process a delivery once, whichever instance the duplicate reaches", async () => {
    const recorders = [new HandlerRecorder(), new HandlerRecorder(), new HandlerRecorder()];
    apps = await Promise.all(
      [expressAdapter, honoAdapter, nestAdapter].map(async (adapter, i) =>
        adapter.start(sourceOptions(await redisStore()), recorders[i]!),
      ),
    );
    for (const app of apps) {
      const answer = await app.send(delivery("shared-1"));
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).success).toBe(true);
    }
    expect(recorders.map((r) => r.calls.length)).toEqual([1, 0, 0]);
  });

  it("answer 409 on another instance while the first is still processing", async () => {
    const holding = new HandlerRecorder("hold-first-call");
    const other = new HandlerRecorder();
    const first = await expressAdapter.start(sourceOptions(await redisStore()), holding);
    const second = await honoAdapter.start(sourceOptions(await redisStore()), other);
    apps.push(first, second);
    const firstAnswer = first.send(delivery("shared-2"));
    await holding.entered();
    expect((await second.send(delivery("shared-2"))).status).toBe(409);
    holding.release();
    expect((await firstAnswer).status).toBe(200);
    expect((await second.send(delivery("shared-2"))).status).toBe(200);
    expect([holding.calls.length, other.calls.length]).toEqual([1, 0]);
  });
});
