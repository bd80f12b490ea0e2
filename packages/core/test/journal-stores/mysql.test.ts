// MysqlDeliveryJournal on a real MariaDB server (tests/mariadb-server): the journal contract over a mysql2 pool and
// over a Knex binding, batching (many record() calls, few INSERTs), entries written through the delivery's
// transaction that commit and roll back with it, times kept in UTC whatever the session's time zone, a journal table
// that refuses writes (a typed error without the entry's values), the shipped migration, and inspect().
import { startMariaDbServer, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import knexFactory, { type Knex } from "knex";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { knexBinding } from "../../src/knex.js";
import { MysqlDeliveryJournal, MysqlIdempotencyStore, mysqlJournalSchema } from "../../src/mysql.js";
import { entry } from "./contract.js";
import { freshTable, sqlJournalContract, watchedPool } from "./sql-contract.js";

let server: TestMariaDbServer;
let pool: mysql.Pool;
let knex: Knex;

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

sqlJournalContract({
  journalName: "MysqlDeliveryJournal",
  storeName: "MysqlIdempotencyStore",
  driver: "mysql2",
  bindingLibrary: "Knex",
  async journal(over, options) {
    const journal = new MysqlDeliveryJournal(
      over === "pool" ? { pool, ...options } : { binding: knexBinding(knex), ...options },
    );
    await journal.ensureSchema();
    return journal;
  },
  async begin() {
    const connection = await pool.getConnection();
    await connection.query("START TRANSACTION");
    return {
      connection,
      async end(commit) {
        await connection.query(commit ? "COMMIT" : "ROLLBACK");
        connection.release();
      },
    };
  },
  inBindingTransaction: (work) => knex.transaction(work),
  async refuseInserts(table) {
    await pool.query(
      `CREATE TRIGGER refuse_${table} BEFORE INSERT ON ${table} FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'journal table is read-only'`,
    );
  },
  secrets: () => [server.url],
  migration: new URL("../../sql/mysql-journal.sql", import.meta.url),
  schema: () => mysqlJournalSchema(),
  store: (table) => new MysqlIdempotencyStore({ pool, table }),
});

describe("MysqlDeliveryJournal", () => {
  it("gathers many record() calls into a few multi-row INSERTs", async () => {
    let inserts = 0;
    const counting = watchedPool(pool, "execute", (sql) => {
      if (sql.startsWith("INSERT INTO")) inserts++;
    });
    const table = freshTable();
    const journal = new MysqlDeliveryJournal({ pool: counting, table });
    await journal.ensureSchema();
    await Promise.all(Array.from({ length: 1_000 }, () => journal.record([entry()])));
    expect(inserts).toBeGreaterThanOrEqual(5);
    expect(inserts).toBeLessThanOrEqual(8);
    const [rows] = await pool.query(`SELECT COUNT(*) AS n FROM ${table}`);
    expect(Number((rows as { n: number }[])[0]?.n)).toBe(1_000);
    await journal.close();
  });

  it("keeps times in UTC whatever the session's time zone", async () => {
    const zoned = mysql.createPool({ uri: server.url, connectionLimit: 2, timezone: "+07:00" });
    const table = freshTable();
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

  it("finds an entry by reference through the reference indexes", async () => {
    const table = freshTable();
    let searchSql = "";
    let searchValues: unknown[] = [];
    const capturing = watchedPool(pool, "execute", (sql, values) => {
      if (sql.includes(" UNION ")) [searchSql, searchValues] = [sql, values ?? []];
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
});
