// The conformance table once more through the Express adapter, with each shared idempotency store behind it:
// Redis (a real redis-server) and Postgres (a real PostgreSQL server), plain and with transactional handlers. The
// answers and handler calls must be those the table states for the default memory store.
import { type IdempotencyStore, PostgresIdempotencyStore, RedisIdempotencyStore } from "@kirimbayar/core/webhooks";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expressAdapter, type RunningApp } from "./adapters.js";
import { conformanceCases } from "./cases.js";
import { sourceOptions } from "./fixtures.js";
import { HandlerRecorder } from "./recorder.js";

let redis: TestRedisServer;
let redisClient: Redis;
let postgres: TestPostgresServer;
let pool: pg.Pool;
let space = 0;

beforeAll(async () => {
  [redis, postgres] = await Promise.all([startRedisServer(), startPostgresServer()]);
  redisClient = new Redis(redis.url, { enableOfflineQueue: false, lazyConnect: true, maxRetriesPerRequest: 1 });
  await redisClient.connect();
  pool = new pg.Pool({ connectionString: postgres.url, max: 10 });
  // A connection ended by the server's shutdown at the end reports it here, not as an uncaught error.
  pool.on("error", () => {});
}, 60_000);

afterAll(async () => {
  redisClient?.disconnect();
  await pool?.end();
  await Promise.all([redis?.stop(), postgres?.destroy()]);
});

interface StoreUnderTest {
  name: string;
  transactional: boolean;
  /** A fresh store (own key space) for one row. */
  make(): Promise<IdempotencyStore>;
}

const stores: StoreUnderTest[] = [
  {
    name: "redis",
    transactional: false,
    make: async () => new RedisIdempotencyStore({ client: redisClient, keyPrefix: `row${space++}:` }),
  },
  ...[false, true].map((transactional) => ({
    name: transactional ? "postgres, transactional handlers" : "postgres",
    transactional,
    async make() {
      const store = new PostgresIdempotencyStore({ pool, table: `row_${space++}` });
      await store.ensureSchema();
      return store;
    },
  })),
];

describe.each(stores)("Express adapter on the $name store", (store) => {
  let app: RunningApp | undefined;

  it.each(conformanceCases)("$name", async (row) => {
    const recorder = new HandlerRecorder(row.behaviour);
    const shared = await store.make();
    const options = sourceOptions(() => shared);
    for (const source of ["qris", "payment", "orders"] as const) {
      options[source] = { ...options[source], idempotency: { store: shared, transactional: store.transactional } };
    }
    app = await expressAdapter.start(options, recorder);
    try {
      if (row.timing === "in-flight") {
        const [first, second] = row.steps as [(typeof row.steps)[0], (typeof row.steps)[0]];
        const firstAnswer = app.send(first.send);
        await recorder.entered();
        expect((await app.send(second.send)).status).toBe(second.expect.status);
        recorder.release();
        expect((await firstAnswer).status).toBe(first.expect.status);
      } else {
        for (const step of row.steps) {
          const answer = await app.send(step.send);
          expect(answer.status).toBe(step.expect.status);
          if (step.expect.success !== undefined) expect(JSON.parse(answer.body).success).toBe(step.expect.success);
        }
      }
      expect(recorder.calls).toEqual(row.calls);
    } finally {
      await app.close();
    }
  });
});
