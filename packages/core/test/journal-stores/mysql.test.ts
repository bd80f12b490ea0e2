// MysqlDeliveryJournal on a real MariaDB server (tests/mariadb-server): the journal contract over a mysql2 pool and
// over a Knex binding, batching (many record() calls, few INSERTs), entries written through the delivery's
// transaction that commit and roll back with it, times kept in UTC whatever the session's time zone, a journal table
// that refuses writes (a typed error without the entry's values), the shipped migration, and inspect().
import { readFileSync } from "node:fs";
import { startMariaDbServer, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import knexFactory, { type Knex } from "knex";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { knexBinding } from "../../src/knex.js";
import {
  DeliveryJournalWriteError,
  MysqlDeliveryJournal,
  MysqlIdempotencyStore,
  mysqlJournalSchema,
} from "../../src/mysql.js";
import { journalContract } from "../support/journal-contract.js";
import { entry, journalStoreContract, unique } from "./contract.js";

let server: TestMariaDbServer;
let pool: mysql.Pool;
let knex: Knex;
let tables = 0;

beforeAll(async () => {
  server = await startMariaDbServer();
  pool = mysql.createPool({ uri: server.url, connectionLimit: 6 });
  knex = knexFactory({ client: "mysql2", connection: server.url, pool: { min: 0, max: 3 } });
}, 90_000);

afterAll(async () => {
  await knex?.destroy();
  await pool?.end();
  await server?.destroy();
});

async function poolJournal(options: { retentionMs?: number } = {}) {
  const journal = new MysqlDeliveryJournal({ pool, table: `journal_${tables++}`, ...options });
  await journal.ensureSchema();
  return journal;
}

describe("MysqlDeliveryJournal over a mysql2 pool", () => {
  journalStoreContract(poolJournal);
});

describe("MysqlDeliveryJournal over a Knex binding", () => {
  journalStoreContract(async (options = {}) => {
    const journal = new MysqlDeliveryJournal({ binding: knexBinding(knex), table: `journal_${tables++}`, ...options });
    await journal.ensureSchema();
    return journal;
  });
});

describe("MysqlDeliveryJournal", () => {
  it("gathers many record() calls into a few multi-row INSERTs", async () => {
    let inserts = 0;
    const counting = new Proxy(pool, {
      get(target, property, receiver) {
        if (property === "execute") {
          return (sql: string, values?: unknown[]) => {
            if (sql.startsWith("INSERT INTO")) inserts++;
            return target.execute(sql, values as never);
          };
        }
        return Reflect.get(target, property, receiver);
      },
    });
    const table = `journal_${tables++}`;
    const journal = new MysqlDeliveryJournal({ pool: counting, table });
    await journal.ensureSchema();
    await Promise.all(Array.from({ length: 1_000 }, () => journal.record([entry()])));
    expect(inserts).toBeGreaterThanOrEqual(5);
    expect(inserts).toBeLessThanOrEqual(8);
    const [rows] = await pool.query(`SELECT COUNT(*) AS n FROM ${table}`);
    expect(Number((rows as { n: number }[])[0]?.n)).toBe(1_000);
    await journal.close();
  });

  it("writes through the delivery's mysql2 transaction: committed with it, rolled back with it", async () => {
    const journal = await poolJournal();
    for (const commit of [true, false]) {
      const connection = await pool.getConnection();
      const e = entry();
      await connection.query("START TRANSACTION");
      await journal.record([e], connection);
      await connection.query(commit ? "COMMIT" : "ROLLBACK");
      connection.release();
      expect(await journal.search({ reference: e.idempotencyKey as string })).toHaveLength(commit ? 1 : 0);
    }
    await journal.close();
  });

  it("writes through a Knex transaction: committed with it, rolled back with it", async () => {
    const journal = new MysqlDeliveryJournal({ binding: knexBinding(knex), table: `journal_${tables++}` });
    await journal.ensureSchema();
    const committed = entry();
    await knex.transaction(async (trx) => {
      await journal.record([committed], trx);
    });
    const rolledBack = entry();
    await expect(
      knex.transaction(async (trx) => {
        await journal.record([rolledBack], trx);
        throw new Error("the handler failed");
      }),
    ).rejects.toThrow("the handler failed");
    expect(await journal.search({ reference: committed.idempotencyKey as string })).toHaveLength(1);
    expect(await journal.search({ reference: rolledBack.idempotencyKey as string })).toHaveLength(0);
    await journal.close();
  });

  it("keeps times in UTC whatever the session's time zone", async () => {
    const zoned = mysql.createPool({ uri: server.url, connectionLimit: 2, timezone: "+07:00" });
    const table = `journal_${tables++}`;
    const journal = new MysqlDeliveryJournal({ pool: zoned, table });
    await journal.ensureSchema();
    await zoned.query("SET GLOBAL time_zone = '+07:00'");
    try {
      const e = entry({ at: Date.UTC(2026, 10, 27, 23, 0, 0, 123) });
      await journal.record([e]);
      const [found] = await journal.search({ reference: e.idempotencyKey as string });
      expect(found?.at).toBe(e.at);
      const [rows] = await pool.query(`SELECT DATE_FORMAT(at, '%Y-%m-%d %H:%i:%s.%f') AS at FROM ${table}`);
      expect((rows as { at: string }[])[0]?.at).toBe("2026-11-27 23:00:00.123000");
    } finally {
      await zoned.query("SET GLOBAL time_zone = 'SYSTEM'");
      await journal.close();
      await zoned.end();
    }
  });

  it("rejects with a typed error, without the entry's values, when the table refuses writes", async () => {
    const journal = await poolJournal();
    const table = `journal_${tables - 1}`;
    await pool.query(
      `CREATE TRIGGER refuse_${table} BEFORE INSERT ON ${table} FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'journal table is read-only'`,
    );
    const secret = "sk_live_SECRET_must_not_leak";
    const e = entry({ references: { qris_history_id: secret }, error: `token=${secret}` });
    const batched = await journal.record([e]).catch((error: unknown) => error);
    const connection = await pool.getConnection();
    await connection.query("START TRANSACTION");
    const inTransaction = await journal.record([e], connection).catch((error: unknown) => error);
    await connection.query("ROLLBACK");
    connection.release();
    for (const error of [batched, inTransaction]) {
      expect(error).toBeInstanceOf(DeliveryJournalWriteError);
      const shown = JSON.stringify(error, Object.getOwnPropertyNames(error)) + String((error as Error).cause);
      expect(shown).toContain("read-only");
      expect(shown).not.toContain(secret);
    }
    await journal.close();
  });

  it("finds an entry by reference through the reference indexes", async () => {
    const table = `journal_${tables++}`;
    let searchSql = "";
    let searchValues: unknown[] = [];
    const capturing = new Proxy(pool, {
      get(target, property, receiver) {
        if (property === "execute") {
          return (sql: string, values?: unknown[]) => {
            if (sql.includes(" UNION ")) [searchSql, searchValues] = [sql, values ?? []];
            return target.execute(sql, values as never);
          };
        }
        return Reflect.get(target, property, receiver);
      },
    });
    const journal = new MysqlDeliveryJournal({ pool: capturing, table });
    await journal.ensureSchema();
    await journal.record(Array.from({ length: 2_000 }, () => entry()));
    await pool.query(`ANALYZE TABLE ${table}`);
    expect(await journal.search({ reference: "absent" })).toEqual([]);
    const [plan] = await pool.execute(`EXPLAIN ${searchSql}`, searchValues as never);
    const keys = (plan as { key: string | null; table: string }[])
      .filter((row) => row.table === table)
      .map((row) => row.key);
    expect(keys.sort()).toEqual(
      ["cnote", "idempotency_key", "order_id", "order_no", "payment_id", "qris_history_id"]
        .map((column) => `kirimbayar_journal_${column}`)
        .sort(),
    );
    await journal.close();
  });

  it("ships a migration file identical to ensureSchema()", () => {
    const file = readFileSync(new URL("../../sql/mysql-journal.sql", import.meta.url), "utf8");
    const statements = file
      .split("\n")
      .filter((line) => !line.startsWith("--"))
      .join("\n")
      .split(";")
      .map((statement) => statement.trim())
      .filter(Boolean);
    expect(statements).toEqual(mysqlJournalSchema());
  });
});

describe("MysqlIdempotencyStore.inspect", () => {
  it("shows the record's state and attempts, never its owner", async () => {
    const store = new MysqlIdempotencyStore({ pool, table: `events_${tables++}` });
    await store.ensureSchema();
    const key = unique("evt");
    expect(await store.inspect(key)).toBeUndefined();
    await store.claim(key, "owner-secret-token", 60_000);
    const held = await store.inspect(key);
    expect(held).toMatchObject({ key, state: "in_progress", attempt: 1 });
    expect(held?.expiresAt).toBeGreaterThan(Date.now());
    expect(held?.expiresAt).toBeLessThan(Date.now() + 61_000);
    expect(JSON.stringify(held)).not.toContain("owner-secret-token");
    await store.release(key, "owner-secret-token", 60_000);
    expect(await store.inspect(key)).toMatchObject({ state: "released", attempt: 1 });
    await store.claim(key, "o2", 60_000);
    await store.complete(key, "o2", 3_600_000);
    const done = await store.inspect(key);
    expect(done).toMatchObject({ state: "completed", attempt: 2 });
    expect(done?.expiresAt).toBeGreaterThan(Date.now() + 3_000_000);
  });
});

describe("MysqlDeliveryJournal: the shared journal contract", () => {
  journalContract(async ({ retentionMs }) => {
    const journal = new MysqlDeliveryJournal({ pool, table: `journal_${tables++}`, retentionMs });
    await journal.ensureSchema();
    return journal;
  });
});
