// MysqlIdempotencyStore on a real MariaDB server (tests/mariadb-server): the shared store contract, keys longer than an
// index allows, leases whatever the session's time zone, the schema file, the version check, statements stuck on
// locked rows, an unreachable server, and transactional handlers whose order update and event record commit together
// or not at all (also when mariadbd is SIGKILLed between the effect and the commit).
import { readFileSync } from "node:fs";
import { startMariaDbServer, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  assertSupportedMysqlVersion,
  MysqlIdempotencyStore,
  type MysqlPoolLike,
  type MysqlQueryable,
  MysqlServerVersionError,
  mysqlIdempotencySchema,
  parseMysqlVersion,
} from "../src/mysql.js";
import {
  createWebhookReceiver,
  type IdempotencyStore,
  IdempotencyStoreUnavailableError,
  tokenVerifier,
} from "../src/webhooks.js";
import { storeContract } from "./support/store-contract.js";
import { qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const TOKEN = "mysql-token";
const quiet = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `connection` gets no answer to a query within 250 ms (the server is stopped); fails after 5 s. */
async function expectFrozen(connection: mysql.Connection): Promise<void> {
  const deadline = performance.now() + 5_000;
  while (performance.now() < deadline) {
    const answered = await Promise.race([
      connection.query("SELECT 1").then(
        () => true,
        () => true,
      ),
      sleep(250).then(() => false),
    ]);
    if (!answered) return;
  }
  throw new Error("the server still answers 5 s after SIGSTOP");
}
const delivery = (id: string) =>
  webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });

let server: TestMariaDbServer;
let pool: mysql.Pool;
let single: mysql.Connection;
let tables = 0;

beforeAll(async () => {
  server = await startMariaDbServer();
  pool = mysql.createPool({ uri: server.url, connectionLimit: 8 });
  single = await mysql.createConnection({ uri: server.url });
  single.on("error", () => {});
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await single?.end().catch(() => {});
  await server?.destroy();
});

/** A store on a fresh table, created before the first operation (the contract builds stores synchronously). */
function withSchema(store: MysqlIdempotencyStore): IdempotencyStore {
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

describe.each([
  ["a mysql2/promise Pool", () => new MysqlIdempotencyStore({ pool, table: `c${tables++}` })],
  ["one mysql2/promise Connection", () => new MysqlIdempotencyStore({ connection: single, table: `c${tables++}` })],
  [
    "a callback-style mysql2 Pool (its promise() used)",
    () => new MysqlIdempotencyStore({ pool: pool.pool, table: `c${tables++}` }),
  ],
])("mysql store contract through %s", (_name, makeStore) => {
  storeContract(() => withSchema(makeStore()));
});

describe("MysqlIdempotencyStore keys and times", () => {
  it("claims and completes keys longer than an index allows, and keeps each readable", async () => {
    const table = `long_${tables++}`;
    const store = new MysqlIdempotencyStore({ pool, table });
    await store.ensureSchema();
    // 5,000 characters of 4-byte UTF-8: far past InnoDB's 3,072-byte index limit. Two keys share 4,999 of them.
    const long = `qris:payment.success:${"🙂".repeat(5_000)}`;
    const sibling = `${long.slice(0, -2)}é`;
    expect(await store.claim(long, "a", 60_000)).toEqual({ state: "claimed", attempt: 1 });
    expect(await store.claim(sibling, "b", 60_000)).toEqual({ state: "claimed", attempt: 1 });
    expect(await store.complete(long, "a", 60_000)).toBe(true);
    expect(await store.claim(long, "c", 60_000)).toEqual({ state: "completed" });
    expect(await store.claim(sibling, "c", 60_000)).toEqual({ state: "in_progress" });
    const [rows] = await pool.query(`SELECT \`key\`, state FROM ${table} ORDER BY state`);
    expect(rows).toEqual([
      { key: long, state: "completed" },
      { key: sibling, state: "processing" },
    ]);
  });

  it("computes leases the same whatever the session time zone and the driver's timezone option", async () => {
    const table = `tz_${tables++}`;
    const east = mysql.createPool({ uri: server.url, connectionLimit: 2, timezone: "+13:00" });
    const west = mysql.createPool({ uri: server.url, connectionLimit: 2, timezone: "-12:00" });
    // Every connection of each pool runs in its own session time zone, 25 hours apart (MariaDB's widest offsets).
    east.pool.on("connection", (connection) => connection.query("SET time_zone = '+13:00'"));
    west.pool.on("connection", (connection) => connection.query("SET time_zone = '-12:00'"));
    try {
      const eastStore = new MysqlIdempotencyStore({ pool: east, table });
      const westStore = new MysqlIdempotencyStore({ pool: west, table });
      await eastStore.ensureSchema();
      expect((await east.query("SELECT @@session.time_zone AS tz"))[0]).toEqual([{ tz: "+13:00" }]);
      // A lease of a minute taken in the east is live in the west, and one of 50 ms runs out for both.
      expect(await eastStore.claim("k-1", "east", 60_000)).toEqual({ state: "claimed", attempt: 1 });
      expect(await westStore.claim("k-1", "west", 60_000)).toEqual({ state: "in_progress" });
      expect(await westStore.claim("k-2", "west", 50)).toEqual({ state: "claimed", attempt: 1 });
      expect(await eastStore.claim("k-2", "east", 60_000)).toEqual({ state: "in_progress" });
      await vi.waitFor(async () => expect((await eastStore.claim("k-2", "east", 60_000)).state).toBe("claimed"), {
        timeout: 2_000,
        interval: 20,
      });
      // Retention alike: a completion kept for a minute in the west is still a duplicate in the east.
      expect(await westStore.complete("k-3", "west", 60_000)).toBe(true);
      expect(await eastStore.claim("k-3", "east", 60_000)).toEqual({ state: "completed" });
    } finally {
      await east.end();
      await west.end();
    }
  });

  it("deletes records past their retention and keeps the others", async () => {
    const store = new MysqlIdempotencyStore({ pool, table: `sweep_${tables++}` });
    await store.ensureSchema();
    await store.claim("old", "o", 10_000);
    await store.complete("old", "o", 20);
    await store.claim("new", "o", 10_000);
    await store.complete("new", "o", 60_000);
    await sleep(50);
    expect(await store.deleteExpired()).toBe(1);
    expect(await store.deleteExpired()).toBe(0);
    expect(await store.claim("new", "p", 10_000)).toEqual({ state: "completed" });
    expect(await store.claim("old", "p", 10_000)).toEqual({ state: "claimed", attempt: 1 });
  });
});

describe("MysqlIdempotencyStore schema and version", () => {
  it("ships a migration file identical to ensureSchema()", () => {
    const file = readFileSync(new URL("../sql/mysql-idempotency.sql", import.meta.url), "utf8");
    const statements = file
      .split("\n")
      .filter((line) => !line.startsWith("--"))
      .join("\n")
      .split(";")
      .map((statement) => statement.trim())
      .filter(Boolean);
    expect(statements).toEqual(mysqlIdempotencySchema());
  });

  it("creates the shipped table on the real server, idempotently", async () => {
    const table = `schema_${tables++}`;
    const store = new MysqlIdempotencyStore({ pool, table });
    await store.ensureSchema();
    await store.ensureSchema();
    const [columns] = await pool.query(
      "SELECT column_name AS name, column_type AS type FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ? ORDER BY ordinal_position",
      [table],
    );
    expect((columns as { name: string; type: string }[]).map((column) => `${column.name} ${column.type}`)).toEqual([
      "key_hash binary(32)",
      "key text",
      "state varchar(10)",
      "owner text",
      "attempts int(11)",
      "lease_expires_at datetime(6)",
      "expires_at datetime(6)",
    ]);
    // The CHECK constraint holds.
    await expect(
      pool.query(`INSERT INTO ${table} (key_hash, \`key\`, state, expires_at) VALUES (x'00', 'k', 'bogus', NOW())`),
    ).rejects.toThrow(/CONSTRAINT/i);
  });

  it("reads MySQL and MariaDB versions and refuses the ones too old, naming found and needed", () => {
    expect(parseMysqlVersion("8.0.36")).toEqual({ product: "mysql", major: 8, minor: 0 });
    expect(parseMysqlVersion("10.11.19-MariaDB-0+deb12u1")).toEqual({ product: "mariadb", major: 10, minor: 11 });
    expect(parseMysqlVersion("5.5.5-10.6.18-MariaDB-log")).toEqual({ product: "mariadb", major: 10, minor: 6 });
    for (const supported of ["8.0.11", "8.4.2-log", "9.1.0", "10.6.0-MariaDB", "11.4.2-MariaDB"]) {
      expect(() => assertSupportedMysqlVersion(supported)).not.toThrow();
    }
    const refused = [
      ["5.7.44-log", "MySQL 5.7.44-log", "MySQL 8.0 or later"],
      ["10.5.23-MariaDB", "MariaDB 10.5.23-MariaDB", "MariaDB 10.6 or later"],
      ["5.5.5-10.4.1-MariaDB", "MariaDB 5.5.5-10.4.1-MariaDB", "MariaDB 10.6 or later"],
    ];
    for (const [version, found, needed] of refused) {
      let error: unknown;
      try {
        assertSupportedMysqlVersion(version as string);
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(MysqlServerVersionError);
      expect(error).toMatchObject({ found, needed, code: "mysql_server_version" });
      expect((error as Error).message).toBe(`MysqlIdempotencyStore needs ${needed}; the server is ${found}`);
    }
    expect(() => assertSupportedMysqlVersion("PostgreSQL 16")).toThrow(MysqlServerVersionError);
  });

  it("ensureSchema() refuses a server that says it is MySQL 5.7, and creates nothing", async () => {
    const table = `old_${tables++}`;
    // The real server, answering VERSION() as a MySQL 5.7 would: the store must stop before its CREATE TABLE.
    const oldServer: MysqlQueryable = {
      query: (sql: string, values?: unknown) =>
        sql === "SELECT VERSION() AS version"
          ? Promise.resolve([[{ version: "5.7.44-log" }], []] as [unknown, unknown])
          : (pool.query(sql, values as never) as unknown as Promise<[unknown, unknown]>),
      execute: (sql: string, values?: unknown) =>
        pool.execute(sql, values as never) as unknown as Promise<[unknown, unknown]>,
    };
    const store = new MysqlIdempotencyStore({ connection: oldServer, table });
    await expect(store.ensureSchema()).rejects.toThrow(
      "MysqlIdempotencyStore needs MySQL 8.0 or later; the server is MySQL 5.7.44-log",
    );
    const [found] = await pool.query("SHOW TABLES LIKE ?", [table]);
    expect(found).toEqual([]);
  });

  it("refuses bad options before touching the database", () => {
    expect(() => new MysqlIdempotencyStore({} as never)).toThrow(/pass either binding/);
    expect(() => new MysqlIdempotencyStore({ pool, connection: single })).toThrow(/pass either binding/);
    expect(() => new MysqlIdempotencyStore({ pool, table: "x; DROP TABLE y" })).toThrow(/table must be/);
    expect(() => new MysqlIdempotencyStore({ pool, table: "a.b.c" })).toThrow(/table must be/);
    expect(() => new MysqlIdempotencyStore({ connection: {} as MysqlQueryable })).toThrow(/query and execute/);
    expect(() => new MysqlIdempotencyStore({ pool, statementTimeoutMs: 0 })).toThrow(/statementTimeoutMs/);
  });
});

describe("MysqlIdempotencyStore faults", () => {
  it("answers 503 within operationTimeoutMs and runs nothing when the server is unreachable; no secret in errors", async () => {
    const password = "s3cr3t-Pa55word";
    const dead = mysql.createPool({ uri: `mysql://shop:${password}@127.0.0.1:1/shop`, connectTimeout: 20_000 });
    const store = new MysqlIdempotencyStore({ pool: dead });
    const errors: unknown[] = [];
    let ran = false;
    for (const transactional of [true, false]) {
      const receiver = createWebhookReceiver({
        source: "qris",
        verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
        idempotency: { store, transactional, operationTimeoutMs: 300 },
        logger: quiet,
      })
        .onAny(() => {
          ran = true;
        })
        .onError((error: unknown) => {
          errors.push(error);
        });
      const started = performance.now();
      expect((await receiver.handle(delivery("u-1"))).status).toBe(503);
      expect(performance.now() - started).toBeLessThan(2_000);
    }
    expect(ran).toBe(false);
    // The store's own error, and everything it wraps, never carry the password or the connection string.
    const direct = await store.claim("k", "o", 1_000).catch((error: unknown) => error);
    expect(direct).toBeInstanceOf(IdempotencyStoreUnavailableError);
    for (const error of [direct, ...errors]) {
      let text = "";
      for (let e = error as { cause?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
        text += `${String(e)} ${JSON.stringify(e, Object.getOwnPropertyNames(e))}`;
        e = e.cause as typeof e;
      }
      expect(text).not.toContain(password);
      expect(text).not.toContain("mysql://");
    }
    await dead.end();
  });

  it("lets later claims through when statements are stuck on locked rows: the stuck ones fail after statementTimeoutMs", async () => {
    const table = `stuck_${tables++}`;
    const small = mysql.createPool({ uri: server.url, connectionLimit: 2 });
    const store = new MysqlIdempotencyStore({ pool: small, table, statementTimeoutMs: 1_000 });
    await store.ensureSchema();
    // Two rows locked by someone else's open transactions (a long report, an admin's session).
    const lockers = await Promise.all([pool.getConnection(), pool.getConnection()]);
    for (const [i, locker] of lockers.entries()) {
      await store.claim(`locked-${i}`, "earlier", 1);
      await locker.query("BEGIN");
      await locker.query(`SELECT * FROM ${table} WHERE key_hash = UNHEX(SHA2(?, 256)) FOR UPDATE`, [`locked-${i}`]);
    }
    await sleep(5); // the 1 ms leases ran out: the claims below must update (and wait on) the locked rows
    // Both pooled connections are taken by claims waiting on those locks (InnoDB would let them wait 50 s).
    const started = performance.now();
    const stuck = await Promise.allSettled([
      store.claim("locked-0", "o-0", 60_000),
      store.claim("locked-1", "o-1", 60_000),
    ]);
    expect(performance.now() - started).toBeLessThan(3_000);
    for (const outcome of stuck) {
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(IdempotencyStoreUnavailableError);
    }
    // Their connections were destroyed, not given back busy: the pool serves the next claim at once.
    const next = performance.now();
    expect(await store.claim("fresh", "o-2", 60_000)).toEqual({ state: "claimed", attempt: 1 });
    expect(performance.now() - next).toBeLessThan(1_500);
    for (const locker of lockers) {
      await locker.query("ROLLBACK");
      locker.release();
    }
    await small.end();
  });
});

/** A shop's `orders` table and a receiver whose transactional handler marks an order paid through ctx.transaction. */
async function shop(options: {
  store?: (table: string) => MysqlIdempotencyStore<mysql.Connection>;
  db?: mysql.Pool;
  fail?: (id: string) => boolean;
  hold?: Promise<void>;
  afterWrite?: (tx: mysql.Connection) => Promise<void>;
  idempotency?: { handlerTimeoutMs?: number; operationTimeoutMs?: number };
  locks?: "named-lock" | "no-wait" | undefined;
}) {
  const db = options.db ?? pool;
  const n = tables++;
  const orders = `orders_${n}`;
  await db.query(`CREATE TABLE ${orders} (history_id VARCHAR(64) PRIMARY KEY, paid_count INT NOT NULL DEFAULT 0)`);
  // The type argument names what ctx.transaction is: the mysql2 connection the pool lent (typed, no cast below).
  const store =
    options.store?.(`events_${n}`) ??
    new MysqlIdempotencyStore<mysql.PoolConnection>({
      pool: db,
      table: `events_${n}`,
      ...(options.locks === undefined ? {} : { transactionalLocks: options.locks }),
    });
  await store.ensureSchema();
  let runs = 0;
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    idempotency: { store, transactional: true, ...options.idempotency },
    logger: quiet,
  }).on("payment.success", async (event, ctx) => {
    runs++;
    const tx = ctx.transaction;
    const id = String(event.data.qris_history_id);
    const markPaid = () =>
      tx.execute(
        `INSERT INTO ${orders} (history_id, paid_count) VALUES (?, 1) ON DUPLICATE KEY UPDATE paid_count = paid_count + 1`,
        [id],
      );
    await markPaid();
    await options.afterWrite?.(tx);
    if (options.hold) {
      await options.hold;
      // Written again after the hold (a handler that ran out of time and goes on): must never commit then.
      if (ctx.signal.aborted) await markPaid();
    }
    if (options.fail?.(id)) throw new Error("handler failed after its write");
  });
  const paidCount = async (id: string) => {
    const [rows] = await db.query(`SELECT paid_count FROM ${orders} WHERE history_id = ?`, [id]);
    return Number((rows as { paid_count: number }[])[0]?.paid_count ?? 0);
  };
  const events = async () => {
    const [rows] = await db.query(`SELECT \`key\`, state, attempts FROM events_${n} ORDER BY \`key\``);
    return rows as { key: string; state: string; attempts: number }[];
  };
  return { receiver, store, paidCount, events, runs: () => runs };
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe.each([
  ["the default on MariaDB (statements that do not wait for row locks)", undefined],
  ["the event's named lock (GET_LOCK, as on MySQL)", "named-lock" as const],
])("transactional handlers on a real MariaDB server, duplicates told by %s", (_name, locks) => {
  it("commits the order update and the event record together; a redelivery is a duplicate", async () => {
    const { receiver, paidCount, events, runs } = await shop({ locks });
    expect((await receiver.handle(delivery("h-1"))).status).toBe(200);
    expect((await receiver.handle(delivery("h-1"))).status).toBe(200);
    expect(await paidCount("h-1")).toBe(1);
    expect(runs()).toBe(1);
    expect(await events()).toEqual([{ key: "qris:payment.success:h-1", state: "completed", attempts: 1 }]);
  });

  it("rolls back the handler's write with the claim when the handler fails; the redelivery applies it once", async () => {
    let failures = 1;
    const { receiver, paidCount, events, runs } = await shop({ locks, fail: () => failures-- > 0 });
    expect((await receiver.handle(delivery("h-2"))).status).toBe(500);
    expect(await paidCount("h-2")).toBe(0);
    expect(await events()).toEqual([]);
    expect((await receiver.handle(delivery("h-2"))).status).toBe(200);
    expect(await paidCount("h-2")).toBe(1);
    expect(runs()).toBe(2);
  });

  it("answers a concurrent duplicate 409 at once, not after the first handler ends (InnoDB would wait 50 s)", async () => {
    const { opened, open } = gate();
    const { receiver, paidCount } = await shop({ locks, hold: opened });
    const first = receiver.handle(delivery("h-3"));
    await sleep(100); // the first delivery holds the event's lock and its uncommitted row
    const started = performance.now();
    expect((await receiver.handle(delivery("h-3"))).status).toBe(409);
    expect(performance.now() - started).toBeLessThan(1_500);
    open();
    expect((await first).status).toBe(200);
    expect((await receiver.handle(delivery("h-3"))).status).toBe(200);
    expect(await paidCount("h-3")).toBe(1);
  });

  it("applies an event once when 20 deliveries of it arrive together, answering every one quickly", async () => {
    const { receiver, paidCount, runs } = await shop({ locks });
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 20 }, () => receiver.handle(delivery("h-race"))));
    expect(performance.now() - started).toBeLessThan(5_000);
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
    expect(statuses).toContain(200);
    expect(runs()).toBe(1);
    expect(await paidCount("h-race")).toBe(1);
  });

  it("answers every one of 20 concurrent redeliveries of a completed event 200, none 409", async () => {
    const { receiver, paidCount, runs } = await shop({ locks });
    expect((await receiver.handle(delivery("h-storm"))).status).toBe(200);
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => receiver.handle(delivery("h-storm"))));
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    }
    expect(runs()).toBe(1);
    expect(await paidCount("h-storm")).toBe(1);
  });

  it("abandons handlers that run out of time: 500 at the limit, their connection destroyed, nothing they wrote commits", async () => {
    const small = mysql.createPool({ uri: server.url, connectionLimit: 2 });
    const { opened, open } = gate();
    const { receiver, paidCount, runs } = await shop({
      locks,
      db: small,
      hold: opened,
      idempotency: { handlerTimeoutMs: 300 },
    });
    const started = performance.now();
    expect((await receiver.handle(delivery("h-6"))).status).toBe(500);
    expect(performance.now() - started).toBeLessThan(2_000);
    // The connection was destroyed: the server rolled the transaction back and freed the event's lock.
    expect(await paidCount("h-6")).toBe(0);
    open();
    await sleep(100);
    expect(await paidCount("h-6")).toBe(0);
    expect((await receiver.handle(delivery("h-6"))).status).toBe(200);
    expect(await paidCount("h-6")).toBe(1);
    expect(runs()).toBe(2);
    // The pool is whole: both its connections still serve.
    const both = await Promise.all([small.getConnection(), small.getConnection()]);
    for (const connection of both) {
      expect((await connection.query("SELECT 1 AS one"))[0]).toEqual([{ one: 1 }]);
      connection.release();
    }
    await small.end();
  });

  it("gives back the connection of a BEGIN that got it after its time limit, so the pool does not shrink", async () => {
    const one = mysql.createPool({ uri: server.url, connectionLimit: 1 });
    const { receiver, paidCount } = await shop({ locks, db: one, idempotency: { operationTimeoutMs: 200 } });
    const busy = await one.getConnection();
    expect((await receiver.handle(delivery("h-7"))).status).toBe(503);
    busy.release();
    await sleep(200);
    expect((await receiver.handle(delivery("h-7"))).status).toBe(200);
    expect(await paidCount("h-7")).toBe(1);
    await one.end();
  });

  it("frees the event's lock after each delivery, so the next delivery of that event on any connection is answered", async () => {
    const { receiver, store } = await shop({ locks });
    expect((await receiver.handle(delivery("h-8"))).status).toBe(200);
    // A transaction on another pool's connection: it would be answered in_progress while the lock stayed held.
    const other = mysql.createPool({ uri: server.url, connectionLimit: 1 });
    try {
      const elsewhere = new MysqlIdempotencyStore({
        pool: other,
        table: `events_${tables - 1}`,
        ...(locks === undefined ? {} : { transactionalLocks: locks }),
      });
      await vi.waitFor(
        async () => {
          const tx = await elsewhere.begin();
          const claim = await tx.claim("qris:payment.success:h-8", 60_000);
          await tx.rollback();
          expect(claim).toEqual({ state: "completed" });
        },
        { timeout: 2_000, interval: 20 },
      );
      expect(store).toBeInstanceOf(MysqlIdempotencyStore);
    } finally {
      await other.end();
    }
  });
});

describe("the transactional claim's statements on MariaDB", () => {
  /** The pool, recording the first two words of every statement its lent connections run. */
  function recordingPool(sent: string[]) {
    const record = (sql: string) => {
      sent.push(sql.trim().split(/\s+/).slice(0, 2).join(" ").replace(/\(.*/, ""));
    };
    return {
      query: (sql: string, values?: unknown) => pool.query(sql, values as never),
      execute: (sql: string, values?: unknown) => pool.execute(sql, values as never),
      getConnection: async () => {
        const connection = await pool.getConnection();
        return {
          query: (sql: string, values?: unknown) => {
            record(sql);
            return connection.query(sql, values as never);
          },
          execute: (sql: string, values?: unknown) => {
            record(sql);
            return connection.execute(sql, values as never);
          },
          release: () => connection.release(),
          destroy: () => connection.destroy(),
        };
      },
    } as unknown as MysqlPoolLike;
  }

  it("by default takes no named lock on MariaDB: a delivery costs what a hand-rolled transaction does", async () => {
    const sent: string[] = [];
    const store = new MysqlIdempotencyStore({ pool: recordingPool(sent), table: `rt_${tables++}` });
    await store.ensureSchema();
    sent.length = 0;
    const tx = await store.begin();
    expect(await tx.claim("k-1", 60_000)).toEqual({ state: "claimed", attempt: 1 });
    await tx.commit();
    expect(sent).toEqual(["START TRANSACTION", "SET STATEMENT", "COMMIT"]);
  });

  it("with transactionalLocks: named-lock, takes the event's lock in the claim and frees it after the commit", async () => {
    const sent: string[] = [];
    const store = new MysqlIdempotencyStore({
      pool: recordingPool(sent),
      table: `rt_${tables++}`,
      transactionalLocks: "named-lock",
    });
    await store.ensureSchema();
    sent.length = 0;
    const tx = await store.begin();
    expect(await tx.claim("k-1", 60_000)).toEqual({ state: "claimed", attempt: 1 });
    await tx.commit();
    expect(sent).toEqual(["START TRANSACTION", "INSERT IGNORE", "COMMIT", "DO RELEASE_LOCK"]);
    expect(() => new MysqlIdempotencyStore({ pool, transactionalLocks: "nowait" as never })).toThrow(
      /transactionalLocks/,
    );
  });
});

describe("transactional handlers on one mysql2 Connection", () => {
  it("applies once, rolls back a failed handler, and serialises deliveries on the connection", async () => {
    const connection = await mysql.createConnection({ uri: server.url });
    let failures = 1;
    const { receiver, paidCount } = await shop({
      store: (table) => new MysqlIdempotencyStore<mysql.Connection>({ connection, table }),
      fail: (id) => id === "s-2" && failures-- > 0,
    });
    const answers = await Promise.all([
      receiver.handle(delivery("s-1")),
      receiver.handle(delivery("s-1")),
      receiver.handle(delivery("s-2")),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 500]);
    expect(await paidCount("s-1")).toBe(1);
    expect(await paidCount("s-2")).toBe(0);
    expect((await receiver.handle(delivery("s-2"))).status).toBe(200);
    expect(await paidCount("s-2")).toBe(1);
    await connection.end();
  });
});

describe("keys from webhook bodies", () => {
  const hostileKeys = [
    "qris:payment.success:it's",
    "qris:payment.success:back\\slash\\'quote",
    "qris:payment.success:'); DROP TABLE kirimbayar_idempotency; --",
    "qris:payment.success:pembayaran-é-日本-🙂",
    "qris:payment.success:?? ? :name $1",
  ];

  for (const sqlMode of ["DEFAULT", "NO_BACKSLASH_ESCAPES"]) {
    it(`are recorded literally with sql_mode ${sqlMode}`, async () => {
      const own = mysql.createPool({ uri: server.url, connectionLimit: 2 });
      if (sqlMode !== "DEFAULT")
        own.pool.on("connection", (connection) => connection.query(`SET sql_mode = '${sqlMode}'`));
      try {
        const table = `hostile_${tables++}`;
        const store = new MysqlIdempotencyStore({ pool: own, table });
        await store.ensureSchema();
        for (const [i, key] of hostileKeys.entries()) {
          if (i % 2 === 0) {
            const tx = await store.begin();
            expect((await tx.claim(key, 60_000)).state).toBe("claimed");
            await tx.commit();
          } else {
            expect((await store.claim(key, "o", 60_000)).state).toBe("claimed");
            expect(await store.complete(key, "o", 60_000)).toBe(true);
          }
        }
        const [rows] = await pool.query(`SELECT \`key\` FROM ${table}`);
        expect((rows as { key: string }[]).map((row) => row.key).sort()).toEqual([...hostileKeys].sort());
        for (const key of hostileKeys) expect(await store.claim(key, "late", 60_000)).toEqual({ state: "completed" });
      } finally {
        await own.end();
      }
    });
  }
});

describe("a MariaDB server that hangs or is SIGKILLed", () => {
  let crashing: TestMariaDbServer;

  beforeAll(async () => {
    crashing = await startMariaDbServer();
  }, 60_000);

  afterAll(async () => {
    await crashing?.destroy();
  });

  it("answers 503 within operationTimeoutMs and runs no handler while mariadbd hangs (SIGSTOP); after it resumes, applies once", async () => {
    const db = mysql.createPool({ uri: crashing.url, connectionLimit: 2 });
    const { receiver, store, paidCount, runs } = await shop({ db, idempotency: { operationTimeoutMs: 300 } });
    const plain = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      idempotency: { store, operationTimeoutMs: 300 },
      logger: quiet,
    }).onAny(() => {
      throw new Error("no handler may run while the store cannot answer");
    });
    expect((await receiver.handle(delivery("f-0"))).status).toBe(200); // the pool's connections are open
    const probe = await mysql.createConnection(crashing.url);
    crashing.freeze();
    try {
      // SIGSTOP takes hold of a thread only when it returns to user space (one in an fsync goes on until it does):
      // start once a query on another connection no longer answers.
      await expectFrozen(probe);
      for (const frozen of [receiver, plain]) {
        const started = performance.now();
        expect((await frozen.handle(delivery("f-1"))).status).toBe(503);
        expect(performance.now() - started).toBeLessThan(2_000);
      }
    } finally {
      crashing.thaw();
      probe.destroy();
    }
    expect(runs()).toBe(1);
    // Connections given up on while frozen were destroyed: bounded retries until a delivery goes through.
    let status = 0;
    for (let attempt = 0; attempt < 10 && status !== 200; attempt++) {
      status = (await receiver.handle(delivery("f-1"))).status;
      if (status !== 200) await sleep(100);
    }
    expect(status).toBe(200);
    expect((await receiver.handle(delivery("f-1"))).status).toBe(200);
    expect(await paidCount("f-1")).toBe(1);
    await db.end();
  }, 30_000);

  it("applies nothing; once the server is back, the redelivery applies the event once", async () => {
    const db = mysql.createPool({ uri: crashing.url, connectionLimit: 4 });
    let crashOnce = true;
    const { receiver, paidCount, events } = await shop({
      db,
      afterWrite: async () => {
        if (!crashOnce) return;
        crashOnce = false;
        await crashing.crash();
      },
      idempotency: { operationTimeoutMs: 2_000 },
    });
    const crashed = await receiver.handle(delivery("k-1"));
    expect(crashed.status).toBeGreaterThanOrEqual(500);
    // While the server is down, deliveries are answered 503 without running the handler.
    expect((await receiver.handle(delivery("k-1"))).status).toBe(503);
    await crashing.start();
    // InnoDB recovered what was committed before the kill, and rolled back the open transaction.
    await vi.waitFor(async () => expect(await paidCount("k-1")).toBe(0), { timeout: 10_000, interval: 100 });
    expect(await events()).toEqual([]);
    // The pool's dead connections fail once each at most; bounded retries until a delivery goes through.
    let status = 0;
    for (let attempt = 0; attempt < 10 && status !== 200; attempt++) {
      status = (await receiver.handle(delivery("k-1"))).status;
      if (status !== 200) await sleep(100);
    }
    expect(status).toBe(200);
    expect(await paidCount("k-1")).toBe(1);
    expect((await receiver.handle(delivery("k-1"))).status).toBe(200);
    expect(await paidCount("k-1")).toBe(1);
    await db.end();
  }, 60_000);
});
