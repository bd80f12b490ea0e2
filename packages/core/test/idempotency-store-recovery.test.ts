// Issue 29: the receiver after a store outage. The store's server dies (SIGKILL) while the app keeps running, the
// deliveries meanwhile are answered 503, and once the server is back the very first delivery succeeds: no pool left
// holding connections whose backend died, no client left waiting out a long reconnect back-off. Real servers: a
// PostgreSQL server (pg Pool; claim-and-complete and transactional modes) and a redis-server (ioredis, node-redis).
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import IORedis from "ioredis";
import pg from "pg";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IdempotencyStore } from "../src/idempotency/types.js";
import { PostgresIdempotencyStore } from "../src/postgres.js";
import { RedisIdempotencyStore } from "../src/redis.js";
import { createWebhookReceiver, tokenVerifier } from "../src/webhooks.js";
import { qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const TOKEN = "store-recovery";
const OUTAGE_MS = 1_500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const delivery = (id: string) =>
  webhookRequest({ url: `/q?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });

/** The first delivery of an id ending in `-inflight` waits in its handler until `inFlight.release()`. */
const inFlight = {
  entered: () => {},
  release: () => {},
  held: new Set<string>(),
};

function receiver(store: IdempotencyStore, runs: string[], transactional = false) {
  return createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    idempotency: { store, transactional, operationTimeoutMs: 1_000 },
    logger: { warn: () => {}, error: () => {} },
  }).on("payment.success", async (event) => {
    const id = String(event.data.qris_history_id);
    if (id.endsWith("-inflight") && !inFlight.held.has(id)) {
      inFlight.held.add(id);
      inFlight.entered();
      await new Promise<void>((resolve) => {
        inFlight.release = resolve;
      });
    }
    runs.push(id);
  });
}

type Receiver = ReturnType<typeof receiver>;

/**
 * Warms the store up (several deliveries at once, so a pool holds several connections), kills its server, checks a
 * delivery during the outage is answered 503, brings the server back and sends one delivery: its status is returned,
 * with the time until it was processed (retried every 100 ms when the first answer was not 200).
 */
async function outage(
  name: string,
  app: Receiver,
  runs: string[],
  server: { crash(): Promise<void>; start(): Promise<void> },
  transactional = false,
): Promise<{ first: number; processedMs: number }> {
  const warm = await Promise.all(Array.from({ length: 6 }, (_, i) => app.handle(delivery(`${name}-warm-${i}`))));
  expect(warm.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
  // One delivery is in its handler when the server dies (in transactional mode it holds a pooled connection).
  const entered = new Promise<void>((resolve) => {
    inFlight.entered = resolve;
  });
  const holding = app.handle(delivery(`${name}-inflight`));
  await entered;
  await server.crash();
  inFlight.release();
  expect((await app.handle(delivery(`${name}-during`))).status).toBe(503);
  await sleep(OUTAGE_MS);
  await server.start();
  const startedAt = performance.now();
  const first = await app.handle(delivery(`${name}-after`));
  const firstMs = Math.round(performance.now() - startedAt);
  // Then, whatever the first answer was, the provider's quick retries until one is processed (bounded).
  let tries = 1;
  let status = first.status;
  while (status !== 200 && tries < 50) {
    await sleep(100);
    status = (await app.handle(delivery(`${name}-after`))).status;
    tries++;
  }
  const processedMs = Math.round(performance.now() - startedAt);
  console.log(
    `[store-recovery] ${name}: first delivery after the server is back: ${first.status} in ${firstMs} ms; processed after ${tries} tries, ${processedMs} ms`,
  );
  expect(status).toBe(200);
  expect(runs.filter((id) => id === `${name}-after`)).toEqual([`${name}-after`]);
  expect(runs).not.toContain(`${name}-during`);
  // The delivery caught by the crash: its transaction could not commit (500, the provider retries and it applies
  // now), or, without a transaction, its completion was recorded once the store answered again (200).
  expect((await holding).status).toBe(transactional ? 500 : 200);
  const redelivered = await app.handle(delivery(`${name}-inflight`));
  expect(redelivered.status).toBe(200);
  expect(runs.filter((id) => id === `${name}-inflight`).length).toBe(transactional ? 2 : 1);
  return { first: first.status, processedMs };
}

describe("PostgreSQL killed and restarted", () => {
  let server: TestPostgresServer;
  const pools: pg.Pool[] = [];

  beforeAll(async () => {
    server = await startPostgresServer();
  }, 60_000);

  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end().catch(() => {})));
    await server?.destroy();
  });

  function pool(): pg.Pool {
    const created = new pg.Pool({ connectionString: server.url, max: 6 });
    created.on("error", () => {});
    pools.push(created);
    return created;
  }

  for (const transactional of [false, true]) {
    const mode = transactional ? "transactional" : "claim-and-complete";
    it(`the first delivery after the restart succeeds (${mode})`, async () => {
      const store = new PostgresIdempotencyStore({ pool: pool(), table: `recovery_${transactional ? "tx" : "plain"}` });
      await store.ensureSchema();
      const runs: string[] = [];
      const recovered = await outage(`pg-${mode}`, receiver(store, runs, transactional), runs, server, transactional);
      expect(recovered.first).toBe(200);
    }, 60_000);
  }
});

describe("Redis killed and restarted", () => {
  let redis: TestRedisServer;
  const closers: (() => void)[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
  });

  afterAll(async () => {
    for (const close of closers) close();
    await redis?.stop();
  });

  // As the README advises: no offline queue, and a reconnect back-off below the store's time limit (1 s).
  const backOff = (tries: number) => Math.min(tries * 50, 500);

  // With the clients' default back-off (growing to 2 s, plus up to 200 ms of jitter for node-redis) the client may
  // come back after the first delivery's time limit: the provider's next retries are processed once it does.
  for (const advised of [true, false]) {
    const settings = advised ? "back-off capped at 500 ms" : "the client's default back-off (up to 2 s)";

    it(`ioredis, ${settings}: ${advised ? "the first delivery after the restart succeeds" : "processed within 3.5 s"}`, async () => {
      const client = new IORedis(redis.port, "127.0.0.1", {
        enableOfflineQueue: false,
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        ...(advised ? { retryStrategy: backOff } : {}),
      });
      client.on("error", () => {});
      await client.connect();
      closers.push(() => client.disconnect());
      const runs: string[] = [];
      const store = new RedisIdempotencyStore({ client, keyPrefix: `recovery:io:${advised}:` });
      const recovered = await outage(`ioredis-${advised ? "advised" : "default"}`, receiver(store, runs), runs, redis);
      if (advised) expect(recovered.first).toBe(200);
      else expect(recovered.processedMs).toBeLessThan(3_500);
    }, 60_000);

    it(`node-redis, ${settings}: ${advised ? "the first delivery after the restart succeeds" : "processed within 3.5 s"}`, async () => {
      const client = createClient({
        url: redis.url,
        disableOfflineQueue: true,
        ...(advised ? { socket: { reconnectStrategy: backOff } } : {}),
      });
      client.on("error", () => {});
      await client.connect();
      closers.push(() => void client.destroy());
      const runs: string[] = [];
      const store = new RedisIdempotencyStore({ client, keyPrefix: `recovery:node:${advised}:` });
      const recovered = await outage(
        `node-redis-${advised ? "advised" : "default"}`,
        receiver(store, runs),
        runs,
        redis,
      );
      if (advised) expect(recovered.first).toBe(200);
      else expect(recovered.processedMs).toBeLessThan(3_500);
    }, 60_000);
  }

  it("a command that waited past its time limit for the reconnect is never sent (no offline queue by the back door)", async () => {
    const client = new IORedis(redis.port, "127.0.0.1", {
      enableOfflineQueue: false,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => 100,
    });
    client.on("error", () => {});
    await client.connect();
    closers.push(() => client.disconnect());
    const store = new RedisIdempotencyStore({ client, keyPrefix: "recovery:stale:", operationTimeoutMs: 200 });
    await redis.crash();
    for (let i = 0; i < 50 && client.status === "ready"; i++) await sleep(10);
    await expect(store.claim("stale", "owner-1", 60_000)).rejects.toThrow(/did not answer within 200 ms/);
    await redis.start();
    for (let i = 0; i < 100 && client.status !== "ready"; i++) await sleep(20);
    expect(client.status).toBe("ready");
    await sleep(100);
    // The restarted server (no persistence) has run no script: the timed-out claim did not follow the reconnect.
    const stats = String(await client.call("INFO", "commandstats"));
    expect(stats).not.toMatch(/cmdstat_eval:/);
    expect(await store.claim("stale", "owner-2", 60_000)).toEqual({ state: "claimed", attempt: 1 });
  }, 30_000);
});
