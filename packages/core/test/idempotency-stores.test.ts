// The same state-machine contract run against every store: memory, Redis (ioredis and node-redis clients, a real
// redis-server on a free loopback port) and Postgres (a pg Pool and a single pg Client on a real PostgreSQL server
// started by the test, and in-process PGlite).

import { PGlite } from "@electric-sql/pglite";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import IORedis from "ioredis";
import pg from "pg";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PostgresIdempotencyStore } from "../src/postgres.js";
import { RedisIdempotencyStore } from "../src/redis.js";
import {
  createWebhookReceiver,
  type IdempotencyStore,
  IdempotencyStoreUnavailableError,
  MemoryIdempotencyStore,
  tokenVerifier,
} from "../src/webhooks.js";
import { storeContract } from "./support/store-contract.js";
import { qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

let redis: TestRedisServer;
let ioredis: IORedis;
let nodeRedis: ReturnType<typeof createClient>;
const silent = { warn: () => {} };
let keySpace = 0;
let postgres: TestPostgresServer;
let pool: pg.Pool;
let pgClient: pg.Client;
let pglite: PGlite;

beforeAll(async () => {
  postgres = await startPostgresServer();
  pool = new pg.Pool({ connectionString: postgres.url, max: 10 });
  pool.on("error", () => {});
  pgClient = new pg.Client({ connectionString: postgres.url });
  pgClient.on("error", () => {});
  await pgClient.connect();
  pglite = new PGlite();
  // PGlite compiles its WebAssembly on the event loop as soon as it is created: waiting for it here keeps that
  // work from landing in the middle of the Redis tests, where it delayed an answer past the 1 s operation limit.
  await pglite.waitReady;
  redis = await startRedisServer();
  ioredis = new IORedis(redis.port, "127.0.0.1", { enableOfflineQueue: true, lazyConnect: true });
  await ioredis.connect();
  nodeRedis = createClient({ url: redis.url, disableOfflineQueue: true });
  await nodeRedis.connect();
}, 60_000); // two real servers and PGlite's start, on a busy CI machine

afterAll(async () => {
  await pool?.end();
  await pgClient?.end();
  await pglite?.close();
  await postgres?.destroy();
  ioredis?.disconnect();
  await nodeRedis?.close();
  await redis?.stop();
});

const stores: [string, () => IdempotencyStore][] = [
  ["memory", () => new MemoryIdempotencyStore()],
  [
    "redis via ioredis",
    () => new RedisIdempotencyStore({ client: ioredis, keyPrefix: `t${keySpace++}:`, logger: silent }),
  ],
  ["redis via node-redis", () => new RedisIdempotencyStore({ client: nodeRedis, keyPrefix: `t${keySpace++}:` })],
  ["postgres via a pg Pool", () => withSchema(new PostgresIdempotencyStore({ pool, table: `t${keySpace++}` }))],
  [
    "postgres via one pg Client",
    () => withSchema(new PostgresIdempotencyStore({ client: pgClient, table: `t${keySpace++}` })),
  ],
  ["postgres on PGlite", () => withSchema(new PostgresIdempotencyStore({ client: pglite, table: `t${keySpace++}` }))],
];

/** A Postgres store on a fresh table, created before the first operation (the contract builds stores synchronously). */
function withSchema(store: PostgresIdempotencyStore): IdempotencyStore {
  const ready = store.ensureSchema();
  return {
    claim: async (...args) => {
      await ready;
      return store.claim(...args);
    },
    complete: async (...args) => {
      await ready;
      return store.complete(...args);
    },
    release: async (...args) => {
      await ready;
      return store.release(...args);
    },
  };
}

describe.each(stores)("%s store contract", (_name, makeStore) => {
  storeContract(makeStore);
});

describe("MemoryIdempotencyStore", () => {
  it("stays within maxEntries", () => {
    const store = new MemoryIdempotencyStore({ maxEntries: 100 });
    for (let i = 0; i < 1_000; i++) store.claim(`k${i}`, "o", 60_000);
    expect(store.size).toBe(100);
  });
});

describe("RedisIdempotencyStore", () => {
  it("keeps both keys of an event on one cluster slot and under the prefix", async () => {
    const store = new RedisIdempotencyStore({ client: ioredis, keyPrefix: "slot-test:", logger: silent });
    await store.claim("qris:payment.success:abc", "o", 10_000);
    await store.release("qris:payment.success:abc", "o", 10_000);
    const keys = (await ioredis.keys("slot-test:*")).sort();
    expect(keys).toEqual(["slot-test:{qris:payment.success:abc}:attempts"]);
    await store.claim("qris:payment.success:abc", "o2", 10_000);
    expect(await ioredis.get("slot-test:{qris:payment.success:abc}")).toBe("p:o2");
  });

  it("refuses something that is not a Redis client", () => {
    expect(() => new RedisIdempotencyStore({ client: {} as IORedis })).toThrow(/ioredis or node-redis/);
  });

  it("advises once at construction when the client queues commands while offline", () => {
    const warn = vi.fn();
    new RedisIdempotencyStore({ client: ioredis, logger: { warn } });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toMatch(/enableOfflineQueue: false/);
    const quiet = vi.fn();
    new RedisIdempotencyStore({ client: nodeRedis, logger: { warn: quiet } });
    expect(quiet).not.toHaveBeenCalled();
  });

  it("gives up after operationTimeoutMs when Redis is unreachable, and the receiver answers 503", async () => {
    // A client that queues forever: its server is a port nobody listens on.
    const unreachable = new IORedis(1, "127.0.0.1", {
      lazyConnect: true,
      retryStrategy: () => 50,
      maxRetriesPerRequest: null,
    });
    unreachable.on("error", () => {});
    const store = new RedisIdempotencyStore({ client: unreachable, operationTimeoutMs: 150, logger: silent });
    const started = Date.now();
    await expect(store.claim("k", "o", 1000)).rejects.toBeInstanceOf(IdempotencyStoreUnavailableError);
    expect(Date.now() - started).toBeLessThan(1_000);

    const handler = vi.fn();
    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: "t0ken", in: "query" })],
      idempotency: { store },
      logger: { error: () => {} },
    }).onAny(handler);
    const response = await receiver.handle(
      webhookRequest({ url: "/q?token=t0ken", rawBody: JSON.stringify(qrisSuccess()) }),
    );
    expect(response.status).toBe(503);
    expect(handler).not.toHaveBeenCalled();
    unreachable.disconnect();
  });

  it("reports a refused command as unavailable (node-redis with its offline queue disabled)", async () => {
    const closed = createClient({ url: redis.url, disableOfflineQueue: true });
    const store = new RedisIdempotencyStore({ client: closed, operationTimeoutMs: 500 });
    await expect(store.claim("k", "o", 1000)).rejects.toBeInstanceOf(IdempotencyStoreUnavailableError);
  });
});
