// PostgresDeliveryJournal on a real PostgreSQL server: the journal contract over a pg pool and over a TypeORM
// binding, batching (many record() calls, few INSERTs), entries written through the delivery's transaction that
// commit and roll back with it (pg and TypeORM), a journal table that refuses writes (a typed error without the
// entry's values), the shipped migration, and the idempotency store's inspect().
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import { DataSource, type EntityManager } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DeliveryJournalOverflowError,
  PostgresDeliveryJournal,
  PostgresIdempotencyStore,
  postgresJournalSchema,
} from "../../src/postgres.js";
import { typeormBinding } from "../../src/typeorm.js";
import { entry } from "./contract.js";
import { freshTable, sqlJournalContract, watchedPool } from "./sql-contract.js";

let server: TestPostgresServer;
let pool: pg.Pool;
let dataSource: DataSource;

beforeAll(async () => {
  server = await startPostgresServer();
  pool = new pg.Pool({ connectionString: server.url, max: 6 });
  pool.on("error", () => {});
  dataSource = new DataSource({ type: "postgres", url: server.url, poolSize: 3 });
  await dataSource.initialize();
}, 60_000);

afterAll(async () => {
  await dataSource?.destroy();
  await pool?.end();
  await server?.destroy();
});

sqlJournalContract({
  journalName: "PostgresDeliveryJournal",
  storeName: "PostgresIdempotencyStore",
  driver: "pg",
  bindingLibrary: "TypeORM",
  async journal(over, options) {
    const journal = new PostgresDeliveryJournal(
      over === "pool" ? { pool, ...options } : { binding: typeormBinding(dataSource), ...options },
    );
    await journal.ensureSchema();
    return journal;
  },
  async begin() {
    const client = await pool.connect();
    await client.query("BEGIN");
    return {
      connection: client,
      async end(commit) {
        await client.query(commit ? "COMMIT" : "ROLLBACK");
        client.release();
      },
    };
  },
  inBindingTransaction: (work) => dataSource.transaction((manager: EntityManager) => work(manager)),
  async countInside(manager, table) {
    const inside = await (manager as EntityManager).query(`SELECT count(*)::int AS n FROM ${table}`);
    return inside[0].n;
  },
  async refuseInserts(table) {
    await pool.query(`CREATE OR REPLACE FUNCTION refuse_${table}() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'journal table is read-only'; END $$`);
    await pool.query(`CREATE TRIGGER refuse BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION refuse_${table}()`);
  },
  secrets: () => [server.url],
  migration: new URL("../../sql/postgres-journal.sql", import.meta.url),
  schema: () => postgresJournalSchema(),
  store: (table) => new PostgresIdempotencyStore({ pool, table }),
});

/** A pool that counts the journal's INSERT statements. */
function countingPool(): { pool: pg.Pool; inserts: () => number } {
  let inserts = 0;
  const counting = watchedPool(pool, "query", (sql) => {
    if (/^INSERT INTO/.test(sql)) inserts++;
  });
  return { pool: counting, inserts: () => inserts };
}

describe("PostgresDeliveryJournal", () => {
  it("gathers many record() calls into a few multi-row INSERTs", async () => {
    const { pool: counted, inserts } = countingPool();
    const table = freshTable();
    const journal = new PostgresDeliveryJournal({ pool: counted, table });
    await journal.ensureSchema();
    const entries = Array.from({ length: 1_000 }, () => entry());
    await Promise.all(entries.map((e) => journal.record([e])));
    // 1,000 entries at 200 per batch: 5 full batches (a timer batch may split one).
    expect(inserts()).toBeGreaterThanOrEqual(5);
    expect(inserts()).toBeLessThanOrEqual(8);
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${table}`);
    expect(rows[0].n).toBe(1_000);
    // A lone entry waits for the timer (~50 ms), not for 199 others.
    const started = performance.now();
    await journal.record([entry()]);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(inserts()).toBeLessThanOrEqual(9);
    await journal.close();
  });

  it("drops the oldest entries when its buffer is full, and tells onError", async () => {
    const errors: unknown[] = [];
    // A pool whose queries never answer until released: the buffer fills.
    let unblock!: () => void;
    const blocked = new Promise<void>((resolve) => {
      unblock = resolve;
    });
    const slow = {
      query: async (text: string, values?: unknown[]) => {
        await blocked;
        return pool.query(text, values);
      },
      connect: () => pool.connect(),
    };
    const table = freshTable();
    await pool.query(postgresJournalSchema(table)[0] as string);
    const journal = new PostgresDeliveryJournal({
      pool: slow,
      table,
      batching: { maxBatch: 10, maxBuffered: 50, flushIntervalMs: 5 },
      onError: (error) => errors.push(error),
    });
    const first = journal.record([entry()]); // goes out at once and waits on the blocked pool
    await new Promise((resolve) => setTimeout(resolve, 20));
    const later = Array.from({ length: 80 }, () => journal.record([entry()]));
    const settled = Promise.allSettled([first, ...later]);
    // While the database does not answer, the buffer holds 50 entries: the 30 oldest are dropped at once.
    expect(journal.dropped).toBe(30);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e instanceof DeliveryJournalOverflowError)).toBe(true);
    unblock();
    const results = await settled;
    await journal.close();
    expect(results.filter((r) => r.status === "rejected")).toHaveLength(30);
    expect(results.slice(1, 31).every((r) => r.status === "rejected")).toBe(true);
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${table}`);
    expect(rows[0].n).toBe(51);
  });

  it("finds an entry by reference through the reference indexes, not a scan of the table", async () => {
    let searchSql = "";
    let searchValues: unknown[] = [];
    const capturing = watchedPool(pool, "query", (sql, values) => {
      if (sql.includes(" UNION ")) [searchSql, searchValues] = [sql, values ?? []];
    });
    const table = freshTable();
    const journal = new PostgresDeliveryJournal({ pool: capturing, table });
    await journal.ensureSchema();
    await journal.record(Array.from({ length: 2_000 }, () => entry()));
    await pool.query(`ANALYZE ${table}`);
    expect(await journal.search({ reference: "absent", source: "qris" })).toEqual([]);
    const { rows } = await pool.query(`EXPLAIN ${searchSql}`, searchValues);
    const plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
    for (const column of ["qris_history_id", "payment_id", "order_id", "order_no", "cnote", "idempotency_key"]) {
      expect(plan).toContain(`${table}_${column}`);
    }
    expect(plan).not.toMatch(/Seq Scan|_at on/);
    await journal.close();
  });
});
