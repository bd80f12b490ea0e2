// The conformance table once more through the Express adapter, with each shared idempotency store behind it:
// Redis (a real redis-server) and Postgres (a real PostgreSQL server), plain and with transactional handlers. The
// answers and handler calls must be those the table states for the default memory store.

import { PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { RedisIdempotencyStore } from "@kirimbayar/core/redis";
import type { IdempotencyStore, WebhookContext } from "@kirimbayar/core/webhooks";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adapters, expressAdapter, type RunningApp } from "./adapters.js";
import { conformanceCases } from "./cases.js";
import { json, qrisPaid, secrets, sourceOptions } from "./fixtures.js";
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

/**
 * A QRIS handler writing through the delivery's transaction: on its first call it writes, hangs until the receiver
 * gives up on it (ctx.signal), then tries to write again, as a handler ignoring the signal would.
 */
class HangingPaymentWriter extends HandlerRecorder {
  qrisCalls = 0;
  lateWriteError: unknown;

  constructor(private readonly table: string) {
    super();
  }

  override async handle(source: string, event: unknown, ctx?: WebhookContext): Promise<void> {
    if (source !== "qris" || ctx === undefined) return super.handle(source, event, ctx);
    this.qrisCalls++;
    const tx = ctx.transaction as pg.PoolClient;
    const markPaid = () => tx.query(`UPDATE ${this.table} SET paid_count = paid_count + 1`);
    await markPaid();
    if (this.qrisCalls > 1) return;
    await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
    try {
      await markPaid();
    } catch (error) {
      this.lateWriteError = error;
    }
  }
}

describe.each(adapters)("$name adapter, transactional Postgres store, a handler that hangs", (adapter) => {
  it("answers 500 at handlerTimeoutMs; nothing of the abandoned transaction commits; the redelivery applies once", async () => {
    const table = `hang_orders_${space++}`;
    await pool.query(`CREATE TABLE ${table} (paid_count int NOT NULL)`);
    await pool.query(`INSERT INTO ${table} VALUES (0)`);
    const store = new PostgresIdempotencyStore({ pool, table: `hang_events_${space++}` });
    await store.ensureSchema();
    const options = sourceOptions();
    options.qris = {
      ...options.qris,
      logger: {},
      idempotency: { store, transactional: true, handlerTimeoutMs: 200 },
    };
    const writer = new HangingPaymentWriter(table);
    const app = await adapter.start(options, writer);
    const paidCount = async () => Number((await pool.query(`SELECT paid_count FROM ${table}`)).rows[0]?.paid_count);
    try {
      const delivery = {
        source: "qris" as const,
        query: `?token=${secrets.qrisToken}`,
        headers: json,
        body: qrisPaid("hang-1"),
      };
      expect((await app.send(delivery)).status).toBe(500);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(writer.lateWriteError).toBeInstanceOf(Error);
      expect(await paidCount()).toBe(0);
      expect((await app.send(delivery)).status).toBe(200);
      expect((await app.send(delivery)).status).toBe(200);
      expect(await paidCount()).toBe(1);
      expect(writer.qrisCalls).toBe(2);
    } finally {
      await app.close();
    }
  });
});
