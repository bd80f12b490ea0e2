// PostgresIdempotencyStore beyond the shared store contract (idempotency-stores.test.ts): transactional handlers on
// a real PostgreSQL server (and on PGlite), where the order update and the event record commit together or not at
// all; an unreachable database; the schema file; retention cleanup.
import { readFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type PgQueryable, PostgresIdempotencyStore, postgresIdempotencySchema } from "../src/postgres.js";
import { createWebhookReceiver, IdempotencyStoreUnavailableError, tokenVerifier } from "../src/webhooks.js";
import { qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const TOKEN = "pg-token";
const quiet = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const delivery = (id: string) =>
  webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });

let server: TestPostgresServer;
let pool: pg.Pool;
let tables = 0;

beforeAll(async () => {
  server = await startPostgresServer();
  pool = new pg.Pool({ connectionString: server.url, max: 8 });
  pool.on("error", () => {});
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await server?.destroy();
});

/** A shop's `orders` table and a receiver whose transactional handler marks an order paid through ctx.transaction. */
async function shop(
  db: PgQueryable,
  options: {
    pool?: pg.Pool;
    fail?: (id: string) => boolean;
    hold?: Promise<void>;
    idempotency?: { handlerTimeoutMs?: number; operationTimeoutMs?: number };
  },
) {
  const n = tables++;
  const orders = `orders_${n}`;
  await db.query(`CREATE TABLE ${orders} (history_id text PRIMARY KEY, paid_count int NOT NULL DEFAULT 0)`);
  const store = options.pool
    ? new PostgresIdempotencyStore({ pool: options.pool, table: `events_${n}` })
    : new PostgresIdempotencyStore({ client: db, table: `events_${n}` });
  await store.ensureSchema();
  let runs = 0;
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    idempotency: { store, transactional: true, ...options.idempotency },
    logger: quiet,
  }).on("payment.success", async (event, ctx) => {
    runs++;
    const tx = ctx.transaction as PgQueryable;
    const id = String(event.data.qris_history_id);
    const markPaid = () =>
      tx.query(
        `INSERT INTO ${orders} (history_id, paid_count) VALUES ($1, 1)
         ON CONFLICT (history_id) DO UPDATE SET paid_count = ${orders}.paid_count + 1`,
        [id],
      );
    await markPaid();
    if (options.hold) {
      await options.hold;
      // Written again after the hold (a handler that ran out of time and goes on): must never commit then.
      if (ctx.signal.aborted) await markPaid();
    }
    if (options.fail?.(id)) throw new Error("handler failed after its write");
  });
  const paidCount = async (id: string) =>
    Number((await db.query(`SELECT paid_count FROM ${orders} WHERE history_id = $1`, [id])).rows[0]?.paid_count ?? 0);
  return { receiver, store, paidCount, runs: () => runs };
}

describe("transactional handlers on a real PostgreSQL server", () => {
  it("commits the order update and the event record together; a redelivery is a duplicate", async () => {
    const { receiver, paidCount, runs } = await shop(pool, { pool });
    expect((await receiver.handle(delivery("h-1"))).status).toBe(200);
    expect((await receiver.handle(delivery("h-1"))).status).toBe(200);
    expect(await paidCount("h-1")).toBe(1);
    expect(runs()).toBe(1);
  });

  it("rolls back the handler's write with the claim when the handler fails; the redelivery applies it once", async () => {
    let failures = 1;
    const { receiver, paidCount, runs } = await shop(pool, { pool, fail: () => failures-- > 0 });
    expect((await receiver.handle(delivery("h-2"))).status).toBe(500);
    expect(await paidCount("h-2")).toBe(0);
    expect((await receiver.handle(delivery("h-2"))).status).toBe(200);
    expect(await paidCount("h-2")).toBe(1);
    expect(runs()).toBe(2);
  });

  it("answers a concurrent duplicate 409 within the lock timeout, not after the first handler ends", async () => {
    let release!: () => void;
    const hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { receiver, paidCount } = await shop(pool, { pool, hold });
    const first = receiver.handle(delivery("h-3"));
    await sleep(100); // the first delivery holds the row lock inside its transaction
    const started = performance.now();
    const duplicate = await receiver.handle(delivery("h-3"));
    expect(duplicate.status).toBe(409);
    expect(performance.now() - started).toBeLessThan(1_500);
    release();
    expect((await first).status).toBe(200);
    expect((await receiver.handle(delivery("h-3"))).status).toBe(200);
    expect(await paidCount("h-3")).toBe(1);
  });

  it("loses neither when the connection dies between the effect and the commit: the redelivery applies it once", async () => {
    let killOnce = true;
    const { receiver, paidCount } = await shop(pool, {
      pool,
      fail: () => false,
      hold: (async () => {})(),
    });
    // Kill the delivery's own backend after the handler's write, before the commit: as a crash of the app would.
    receiver.on("payment.success", async (_event, ctx) => {
      if (!killOnce) return;
      killOnce = false;
      const tx = ctx.transaction as PgQueryable;
      const { rows } = await tx.query("SELECT pg_backend_pid() AS pid");
      await pool.query("SELECT pg_terminate_backend($1, 5000)", [rows[0]?.pid]);
    });
    const crashed = await receiver.handle(delivery("h-4"));
    expect(crashed.status).toBeGreaterThanOrEqual(500);
    expect(await paidCount("h-4")).toBe(0);
    expect((await receiver.handle(delivery("h-4"))).status).toBe(200);
    expect(await paidCount("h-4")).toBe(1);
  });

  it("abandons handlers that run out of time: 500 at the limit, their connection closed, nothing they wrote commits", async () => {
    const small = new pg.Pool({ connectionString: server.url, max: 2 });
    small.on("error", () => {});
    let discarded = 0;
    small.on("remove", () => discarded++);
    let release!: () => void;
    const hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { receiver, paidCount, runs } = await shop(small, {
      pool: small,
      hold,
      idempotency: { handlerTimeoutMs: 300 },
    });
    const started = performance.now();
    expect((await receiver.handle(delivery("h-6"))).status).toBe(500);
    expect(performance.now() - started).toBeLessThan(2_000);
    // The pool discarded the delivery's connection: the database rolled its transaction back.
    await vi.waitFor(() => expect(discarded).toBe(1));
    expect(await paidCount("h-6")).toBe(0);
    release();
    await sleep(100);
    expect(await paidCount("h-6")).toBe(0);
    expect((await receiver.handle(delivery("h-6"))).status).toBe(200);
    expect(await paidCount("h-6")).toBe(1);
    expect(runs()).toBe(2);
    await small.end();
  });

  it("gives back the connection of a BEGIN that got it after its time limit, so the pool does not shrink", async () => {
    const single = new pg.Pool({ connectionString: server.url, max: 1 });
    single.on("error", () => {});
    const { receiver, paidCount } = await shop(single, { pool: single, idempotency: { operationTimeoutMs: 200 } });
    const busy = await single.connect();
    expect((await receiver.handle(delivery("h-7"))).status).toBe(503);
    busy.release();
    await sleep(200);
    expect(single.idleCount).toBe(1);
    expect((await receiver.handle(delivery("h-7"))).status).toBe(200);
    expect(await paidCount("h-7")).toBe(1);
    await single.end();
  });

  it("answers 503 and runs nothing when the database is unreachable", async () => {
    const dead = new pg.Pool({ host: "127.0.0.1", port: 1, connectionTimeoutMillis: 500 });
    dead.on("error", () => {});
    const store = new PostgresIdempotencyStore({ pool: dead });
    let ran = false;
    for (const transactional of [true, false]) {
      const receiver = createWebhookReceiver({
        source: "qris",
        verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
        idempotency: { store, transactional },
        logger: quiet,
      }).onAny(() => {
        ran = true;
      });
      expect((await receiver.handle(delivery("h-5"))).status).toBe(503);
    }
    expect(ran).toBe(false);
    await dead.end();
  });
});

describe("transactional handlers on PGlite (in-process, one connection)", () => {
  it("applies once, rolls back a failed handler, and serialises deliveries on its single connection", async () => {
    const db = new PGlite();
    let failures = 1;
    const { receiver, paidCount } = await shop(db, { fail: (id) => id === "p-2" && failures-- > 0 });
    const answers = await Promise.all([
      receiver.handle(delivery("p-1")),
      receiver.handle(delivery("p-1")),
      receiver.handle(delivery("p-2")),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 500]);
    expect(await paidCount("p-1")).toBe(1);
    expect(await paidCount("p-2")).toBe(0);
    expect((await receiver.handle(delivery("p-2"))).status).toBe(200);
    expect(await paidCount("p-2")).toBe(1);
    await db.close();
  });
});

describe("transactional handlers on one pg Client that run out of time", () => {
  it("are answered 500 at the limit; the transaction (the app's own connection, not closed) commits when they end", async () => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    let release!: () => void;
    const hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { receiver, paidCount, runs } = await shop(client, { hold, idempotency: { handlerTimeoutMs: 200 } });
    expect((await receiver.handle(delivery("c-1"))).status).toBe(500);
    release();
    await sleep(150);
    // Written twice by the one late run (once after the limit), in the transaction that committed with the record.
    expect(await paidCount("c-1")).toBe(2);
    const retry = await receiver.handle(delivery("c-1"));
    expect(retry.status).toBe(200);
    expect(runs()).toBe(1);
    await client.end();
  });
});

describe("transactional handlers on PGlite that run out of time", () => {
  it("a delivery whose BEGIN timed out waiting for the one connection does not keep it once its turn comes", async () => {
    const db = new PGlite();
    let release!: () => void;
    const hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { receiver, paidCount } = await shop(db, { hold, idempotency: { operationTimeoutMs: 150 } });
    const first = receiver.handle(delivery("p-4"));
    await sleep(50);
    expect((await receiver.handle(delivery("p-5"))).status).toBe(503);
    release();
    expect((await first).status).toBe(200);
    // The second delivery's BEGIN got the connection late; it was given back, so the next delivery runs.
    expect((await receiver.handle(delivery("p-5"))).status).toBe(200);
    expect(await paidCount("p-5")).toBe(1);
    await db.close();
  });

  it("are answered 500 at the limit; their transaction is rolled back at once, so the database is free again", async () => {
    const db = new PGlite();
    let release!: () => void;
    const hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { receiver, paidCount, runs } = await shop(db, { hold, idempotency: { handlerTimeoutMs: 200 } });
    expect((await receiver.handle(delivery("p-3"))).status).toBe(500);
    // The one connection is free while the handler still hangs: the app's own statements run.
    expect(await paidCount("p-3")).toBe(0);
    release();
    await sleep(100);
    // Its write after the limit was refused (PGlite: "Transaction is closed"); the retry applies the event once.
    expect(await paidCount("p-3")).toBe(0);
    expect((await receiver.handle(delivery("p-3"))).status).toBe(200);
    expect(await paidCount("p-3")).toBe(1);
    expect(runs()).toBe(2);
    await db.close();
  });
});

describe("PostgresIdempotencyStore", () => {
  it("ships a migration file identical to ensureSchema()", () => {
    const file = readFileSync(new URL("../sql/postgres-idempotency.sql", import.meta.url), "utf8");
    const statements = file
      .split("\n")
      .filter((line) => !line.startsWith("--"))
      .join("\n")
      .split(";")
      .map((statement) => statement.trim())
      .filter(Boolean);
    expect(statements).toEqual(postgresIdempotencySchema());
  });

  it("deletes records past their retention and keeps the others", async () => {
    const store = new PostgresIdempotencyStore({ pool, table: `sweep_${tables++}` });
    await store.ensureSchema();
    await store.claim("old", "o", 10_000);
    await store.complete("old", "o", 20);
    await store.claim("new", "o", 10_000);
    await store.complete("new", "o", 60_000);
    await sleep(50);
    expect(await store.deleteExpired()).toBe(1);
    expect(await store.claim("new", "p", 10_000)).toEqual({ state: "completed" });
  });

  it("refuses bad options before touching the database", () => {
    expect(() => new PostgresIdempotencyStore({} as never)).toThrow(/pass one of binding .*, pool .* or client/);
    expect(() => new PostgresIdempotencyStore({ pool, table: "x; DROP TABLE y" })).toThrow(/table must be/);
    expect(() => new PostgresIdempotencyStore({ client: {} as PgQueryable })).toThrow(/query/);
  });
});

describe("transactional handlers through an ORM (Drizzle on node-postgres)", () => {
  it("writes through drizzle(ctx.transaction): committed with the event, rolled back with it", async () => {
    const { drizzle } = await import("drizzle-orm/node-postgres");
    const { eq, sql } = await import("drizzle-orm");
    const { integer, pgTable, text } = await import("drizzle-orm/pg-core");
    const n = tables++;
    const orders = pgTable(`drizzle_orders_${n}`, {
      historyId: text("history_id").primaryKey(),
      status: text("status").notNull(),
      paidCount: integer("paid_count").notNull().default(0),
    });
    await pool.query(
      `CREATE TABLE drizzle_orders_${n} (history_id text PRIMARY KEY, status text NOT NULL, paid_count int NOT NULL DEFAULT 0)`,
    );
    await drizzle(pool).insert(orders).values({ historyId: "d-1", status: "awaiting_payment" });
    const store = new PostgresIdempotencyStore({ pool, table: `drizzle_events_${n}` });
    await store.ensureSchema();
    let failNext = true;
    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      idempotency: { store, transactional: true },
      logger: quiet,
    }).on("payment.success", async (event, ctx) => {
      // The documented pattern: an ORM instance over the connection that holds this delivery's transaction.
      const db = drizzle(ctx.transaction as pg.PoolClient);
      await db
        .update(orders)
        .set({ status: "paid", paidCount: sql`${orders.paidCount} + 1` })
        .where(eq(orders.historyId, String(event.data.qris_history_id)));
      if (failNext) {
        failNext = false;
        throw new Error("fails after the ORM's write");
      }
    });
    const read = async () => (await drizzle(pool).select().from(orders).where(eq(orders.historyId, "d-1")))[0];
    expect((await receiver.handle(delivery("d-1"))).status).toBe(500);
    expect(await read()).toMatchObject({ status: "awaiting_payment", paidCount: 0 });
    expect((await receiver.handle(delivery("d-1"))).status).toBe(200);
    expect((await receiver.handle(delivery("d-1"))).status).toBe(200);
    expect(await read()).toMatchObject({ status: "paid", paidCount: 1 });
  });
});

describe("PGlite shared by the app and the store", () => {
  it("keeps the app's own statements out of a delivery's open transaction (they wait for it)", async () => {
    const db = new PGlite();
    await db.query("CREATE TABLE app_log (line text)");
    const store = new PostgresIdempotencyStore({ client: db, table: "shared_events" });
    await store.ensureSchema();
    const transaction = await store.begin();
    expect(await transaction.claim("k-1", 60_000)).toEqual({ state: "claimed", attempt: 1 });
    // The app writes on the same database while the delivery's transaction is open...
    const appWrite = db.query("INSERT INTO app_log VALUES ('order created')");
    await sleep(20);
    // ...and the delivery fails: its rollback must not take the app's write with it.
    await transaction.rollback();
    await appWrite;
    expect((await db.query("SELECT line FROM app_log")).rows).toEqual([{ line: "order created" }]);
    expect(await store.claim("k-1", "o", 10_000)).toEqual({ state: "claimed", attempt: 1 });
    await db.close();
  });
});

describe("batched claims and completions on a real PostgreSQL server", () => {
  /** The shared pool, counting the batched statements sent through it. */
  function countingPool() {
    const counts = { claim: 0, complete: 0 };
    const counting = {
      query(config: unknown, values?: unknown[]) {
        const name = typeof config === "string" ? "" : ((config as { name?: string }).name ?? "");
        if (name.startsWith("kirimbayar_claim_")) counts.claim += 1;
        if (name.startsWith("kirimbayar_complete_")) counts.complete += 1;
        return (pool.query as (config: unknown, values?: unknown[]) => Promise<pg.QueryResult>)(config, values);
      },
      connect: () => pool.connect(),
    };
    return { counting, counts };
  }

  async function freshStore(options: { batching?: false; pool?: unknown } = {}) {
    const table = `batched_${tables++}`;
    const store = new PostgresIdempotencyStore({
      pool: (options.pool ?? pool) as pg.Pool,
      table,
      ...(options.batching === false ? { batching: false as const } : {}),
    });
    await store.ensureSchema();
    return store;
  }

  it("serves 200 concurrent deliveries with far fewer statements, each claimed and completed once", async () => {
    const { counting, counts } = countingPool();
    const store = await freshStore({ pool: counting });
    const keys = Array.from({ length: 200 }, (_, i) => `k-${i}`);
    const claims = await Promise.all(keys.map((key) => store.claim(key, `owner-${key}`, 60_000)));
    expect(claims.every((claim) => claim.state === "claimed" && claim.attempt === 1)).toBe(true);
    const done = await Promise.all(keys.map((key) => store.complete(key, `owner-${key}`, 60_000)));
    expect(done.every(Boolean)).toBe(true);
    expect(counts.claim).toBeGreaterThan(0);
    expect(counts.claim).toBeLessThanOrEqual(20);
    expect(counts.complete).toBeLessThanOrEqual(20);
    const again = await Promise.all(keys.map((key) => store.claim(key, "late", 60_000)));
    expect(again.every((claim) => claim.state === "completed")).toBe(true);
  });

  it("with batching: false sends one statement per call", async () => {
    const { counting, counts } = countingPool();
    const store = await freshStore({ pool: counting, batching: false });
    await Promise.all(["a", "b", "c", "d"].map((key) => store.claim(key, "o", 60_000)));
    await Promise.all(["a", "b", "c", "d"].map((key) => store.complete(key, "o", 60_000)));
    expect(counts).toEqual({ claim: 4, complete: 4 });
  });

  it("gives one key claimed 20 times at once to exactly one delivery", async () => {
    const store = await freshStore();
    const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => store.claim("same", `o-${i}`, 60_000)));
    expect(claims.filter((claim) => claim.state === "claimed")).toHaveLength(1);
    expect(claims.filter((claim) => claim.state === "in_progress")).toHaveLength(19);
    const winner = claims.findIndex((claim) => claim.state === "claimed");
    // Only the holder of the lease completes it; the others' completions are refused.
    const completions = await Promise.all(claims.map((_, i) => store.complete("same", `o-${i}`, 60_000)));
    expect(completions[winner]).toBe(true);
    expect(completions.filter(Boolean)).toHaveLength(1);
  });

  it("lets two instances race for the same 300 keys in opposite orders without a deadlock or a double claim", async () => {
    const first = await freshStore();
    const table = `batched_${tables - 1}`;
    const secondPool = new pg.Pool({ connectionString: server.url, max: 8 });
    try {
      const second = new PostgresIdempotencyStore({ pool: secondPool, table });
      const keys = Array.from({ length: 300 }, (_, i) => `race-${i}`);
      const [a, b] = await Promise.all([
        Promise.all(keys.map((key) => first.claim(key, "first", 60_000))),
        Promise.all([...keys].reverse().map((key) => second.claim(key, "second", 60_000))),
      ]);
      const bByKey = new Map([...keys].reverse().map((key, i) => [key, b[i]]));
      for (const [i, key] of keys.entries()) {
        const claimedBy = [a[i]?.state, bByKey.get(key)?.state].filter((state) => state === "claimed");
        expect(claimedBy, key).toHaveLength(1);
      }
    } finally {
      await secondPool.end();
    }
  });

  it("lets later claims through when batches are stuck on locked rows: the stuck ones fail after batching.timeoutMs", async () => {
    const table = `batched_${tables++}`;
    const store = new PostgresIdempotencyStore({ pool, table, batching: { timeoutMs: 300 } });
    await store.ensureSchema();
    // Two rows locked by open transactions of someone else (a long sweep, an admin's session): a claim batch that
    // touches one waits for its lock. Both of the store's two batch places are then taken.
    const lockers = await Promise.all([pool.connect(), pool.connect()]);
    for (const [i, locker] of lockers.entries()) {
      await store.claim(`locked-${i}`, "earlier", 1);
      await locker.query("BEGIN");
      await locker.query(`SELECT 1 FROM ${table} WHERE key = $1 FOR UPDATE`, [`locked-${i}`]);
    }
    await sleep(5); // the 1 ms leases have run out, so the claims below must update (and wait on) the locked rows
    const stuck = [store.claim("locked-0", "o-0", 60_000), store.claim("locked-1", "o-1", 60_000)];
    const outcomes = Promise.allSettled(stuck);
    await sleep(20);
    const started = performance.now();
    expect(await store.claim("fresh", "o-2", 60_000)).toEqual({ state: "claimed", attempt: 1 });
    expect(performance.now() - started).toBeLessThan(2_000);
    for (const outcome of await outcomes) {
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(IdempotencyStoreUnavailableError);
    }
    for (const locker of lockers) {
      await locker.query("ROLLBACK");
      locker.release();
    }
    // The stuck statements ran once the locks went, after their calls had failed (answered 503): their late claims
    // are given back at once instead of holding the keys until the lease ends, so the retry claims the key.
    let retry = await store.claim("locked-0", "o-3", 60_000);
    for (let i = 0; i < 50 && retry.state === "in_progress"; i++) {
      await sleep(20);
      retry = await store.claim("locked-0", "o-3", 60_000);
    }
    expect(retry.state).toBe("claimed");
  });

  it("fails every call of a batch with IdempotencyStoreUnavailableError when the database refuses it", async () => {
    const store = new PostgresIdempotencyStore({ pool, table: `missing_${tables++}` }); // no ensureSchema: no table
    const results = await Promise.allSettled(["a", "b", "c"].map((key) => store.claim(key, "o", 60_000)));
    for (const result of results) {
      expect(result.status).toBe("rejected");
      expect((result as PromiseRejectedResult).reason.name).toBe("IdempotencyStoreUnavailableError");
    }
  });
});

describe("statement names", () => {
  it("keeps two stores with long table names sharing 60 characters apart on one pool", async () => {
    // PostgreSQL cuts identifiers (prepared statement names too) at 63 bytes.
    const prefix = `t${tables++}_${"x".repeat(56)}`.slice(0, 60);
    const stores = ["_a1", "_b2"].map((suffix) => new PostgresIdempotencyStore({ pool, table: `${prefix}${suffix}` }));
    for (const store of stores) await store.ensureSchema();
    const claims = await Promise.all(stores.map((store) => store.claim("same-key", "o", 60_000)));
    expect(claims.map((claim) => claim.state)).toEqual(["claimed", "claimed"]);
    for (const store of stores) {
      const tx = await store.begin();
      expect((await tx.claim("tx-key", 60_000)).state).toBe("claimed");
      await tx.commit();
    }
    for (const suffix of ["_a1", "_b2"]) {
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${prefix}${suffix}"`);
      expect(rows[0].n).toBe(2);
    }
  });
});

describe("the transactional claim's one round trip (BEGIN; EXECUTE with inlined literals)", () => {
  // Keys come from webhook bodies; inlined into SQL they must stay exactly what they were, whatever they hold.
  const hostileKeys = [
    "qris:payment.success:it's",
    "qris:payment.success:back\\slash\\'quote",
    "qris:payment.success:'); DROP TABLE kirimbayar_idempotency; --",
    "qris:payment.success:$1 $2 $' $& $$ $$tag$$",
    "qris:payment.success:pembayaran-é-日本-🙂",
    "qris:payment.success:E'x' U&'\\0041'",
  ];

  for (const [standardStrings, preparedStatements] of [
    ["on", undefined],
    ["off", undefined],
    ["on", false],
    ["off", false],
  ] as const) {
    it(`records hostile keys literally (standard_conforming_strings ${standardStrings}, ${preparedStatements === false ? "the claim's text inlined" : "EXECUTE"})`, async () => {
      const own = new pg.Pool({
        connectionString: server.url,
        max: 2,
        options: `-c standard_conforming_strings=${standardStrings}`,
      });
      own.on("error", () => {});
      try {
        const table = `hostile_${tables++}`;
        const store = new PostgresIdempotencyStore({
          pool: own,
          table,
          ...(preparedStatements === false ? { preparedStatements } : {}),
        });
        await store.ensureSchema();
        for (const key of hostileKeys) {
          const tx = await store.begin();
          expect((await tx.claim(key, 60_000)).state).toBe("claimed");
          await tx.commit();
        }
        const { rows } = await pool.query(`SELECT key FROM ${table} ORDER BY key`);
        expect(rows.map((row) => row.key)).toEqual([...hostileKeys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
        // And each is a duplicate of itself afterwards, found through the same inlined claim.
        for (const key of hostileKeys) {
          const tx = await store.begin();
          expect((await tx.claim(key, 60_000)).state).toBe("completed");
          await tx.rollback();
        }
      } finally {
        await own.end();
      }
    });
  }

  it("opens and claims in one query, prepares once per connection, and again on a connection the pool replaced", async () => {
    const own = new pg.Pool({ connectionString: server.url, max: 1, application_name: "kirimbayar-round-trips" });
    own.on("error", () => {});
    const sent: string[] = [];
    // Every statement a lent connection runs, by its first word.
    const counted = new WeakSet<object>();
    own.on("connect", (client) => {
      if (counted.has(client)) return;
      counted.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
        const text = typeof args[0] === "string" ? args[0] : String((args[0] as { text?: string })?.text);
        sent.push(text.split(/[\s(]/)[0] as string);
        return query(...args);
      };
    });
    try {
      const store = new PostgresIdempotencyStore({ pool: own, table: `rt_${tables++}` });
      await store.ensureSchema();
      sent.length = 0;
      const deliver = async (key: string) => {
        const tx = await store.begin();
        expect((await tx.claim(key, 60_000)).state).toBe("claimed");
        await tx.commit();
      };
      await deliver("k-1");
      await deliver("k-2");
      expect(sent).toEqual(["PREPARE", "BEGIN;", "COMMIT", "BEGIN;", "COMMIT"]);
      // The backend dies while idle: the pool replaces the connection, and the new one gets its own PREPARE.
      await pool.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'kirimbayar-round-trips'",
      );
      await sleep(100);
      sent.length = 0;
      let delivered = false;
      for (let attempt = 0; attempt < 3 && !delivered; attempt++) {
        try {
          await deliver("k-3");
          delivered = true;
        } catch {
          // The first use of a connection killed while idle may fail once (503 for a webhook); the next works.
        }
      }
      expect(delivered).toBe(true);
      expect(sent.filter((text) => text === "PREPARE")).toHaveLength(1);
    } finally {
      await own.end();
    }
  });

  it("with preparedStatements: false sends BEGIN and the claim's own text (values inlined) in one query", async () => {
    const own = new pg.Pool({ connectionString: server.url, max: 1 });
    own.on("error", () => {});
    const sent: string[] = [];
    own.on("connect", (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
        sent.push(String(args[0]).split(/[\s(]/)[0] as string);
        return query(...args);
      };
    });
    try {
      const store = new PostgresIdempotencyStore({ pool: own, table: `np_${tables++}`, preparedStatements: false });
      await store.ensureSchema();
      sent.length = 0;
      for (const key of ["it's", "k-2", "it's"]) {
        const tx = await store.begin();
        const claim = await tx.claim(key, 60_000);
        await (claim.state === "claimed" ? tx.commit() : tx.rollback());
      }
      expect(sent).toEqual(["BEGIN;", "COMMIT", "BEGIN;", "COMMIT", "BEGIN;", "ROLLBACK"]);
      const { rows } = await pool.query(`SELECT key FROM np_${tables - 1} ORDER BY key`);
      expect(rows.map((row) => row.key)).toEqual(["it's", "k-2"]);
    } finally {
      await own.end();
    }
  });
});
