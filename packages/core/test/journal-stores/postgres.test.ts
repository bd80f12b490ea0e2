// PostgresDeliveryJournal on a real PostgreSQL server: the journal contract over a pg pool and over a TypeORM
// binding, batching (many record() calls, few INSERTs), entries written through the delivery's transaction that
// commit and roll back with it (pg and TypeORM), a journal table that refuses writes (a typed error without the
// entry's values), the shipped migration, and the idempotency store's inspect().
import { readFileSync } from "node:fs";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import { DataSource, type EntityManager } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DeliveryJournalOverflowError,
  DeliveryJournalWriteError,
  PostgresDeliveryJournal,
  PostgresIdempotencyStore,
  postgresJournalSchema,
} from "../../src/postgres.js";
import { typeormBinding } from "../../src/typeorm.js";
import { journalContract } from "../support/journal-contract.js";
import { entry, journalStoreContract, unique } from "./contract.js";

let server: TestPostgresServer;
let pool: pg.Pool;
let dataSource: DataSource;
let tables = 0;

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

/** A pool that counts the journal's INSERT statements. */
function countingPool(): { pool: pg.Pool; inserts: () => number } {
  let inserts = 0;
  const counting = new Proxy(pool, {
    get(target, property, receiver) {
      if (property === "query") {
        // Text, or a named statement's config ({ name, text, values }).
        return (text: string | { text: string }, values?: unknown[]) => {
          if (/^INSERT INTO/.test(typeof text === "string" ? text : text.text)) inserts++;
          return target.query(text as string, values);
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
  return { pool: counting, inserts: () => inserts };
}

async function pgJournal(options: { retentionMs?: number } = {}) {
  const journal = new PostgresDeliveryJournal({ pool, table: `journal_${tables++}`, ...options });
  await journal.ensureSchema();
  return journal;
}

describe("PostgresDeliveryJournal over a pg pool", () => {
  journalStoreContract(pgJournal);
});

describe("PostgresDeliveryJournal over a TypeORM binding", () => {
  journalStoreContract(async (options = {}) => {
    const journal = new PostgresDeliveryJournal({
      binding: typeormBinding(dataSource),
      table: `journal_${tables++}`,
      ...options,
    });
    await journal.ensureSchema();
    return journal;
  });
});

describe("PostgresDeliveryJournal", () => {
  it("gathers many record() calls into a few multi-row INSERTs", async () => {
    const { pool: counted, inserts } = countingPool();
    const journal = new PostgresDeliveryJournal({ pool: counted, table: `journal_${tables++}` });
    await journal.ensureSchema();
    const entries = Array.from({ length: 1_000 }, () => entry());
    await Promise.all(entries.map((e) => journal.record([e])));
    // 1,000 entries at 200 per batch: 5 full batches (a timer batch may split one).
    expect(inserts()).toBeGreaterThanOrEqual(5);
    expect(inserts()).toBeLessThanOrEqual(8);
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM journal_${tables - 1}`);
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
    const table = `journal_${tables++}`;
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

  it("writes through the delivery's pg transaction: committed with it, rolled back with it", async () => {
    const journal = await pgJournal();
    for (const commit of [true, false]) {
      const client = await pool.connect();
      const e = entry();
      await client.query("BEGIN");
      await journal.record([e], client);
      await client.query(commit ? "COMMIT" : "ROLLBACK");
      client.release();
      expect(await journal.search({ reference: e.idempotencyKey as string })).toHaveLength(commit ? 1 : 0);
    }
    await journal.close();
  });

  it("writes through a TypeORM transaction: committed with it, rolled back with it", async () => {
    const journal = new PostgresDeliveryJournal({ binding: typeormBinding(dataSource), table: `journal_${tables++}` });
    await journal.ensureSchema();
    const committed = entry();
    await dataSource.transaction(async (manager: EntityManager) => {
      await journal.record([committed], manager);
      // Visible inside the transaction before it commits: it went through it, not through the batch.
      const inside = await manager.query(`SELECT count(*)::int AS n FROM journal_${tables - 1}`);
      expect(inside[0].n).toBe(1);
    });
    const rolledBack = entry();
    await expect(
      dataSource.transaction(async (manager: EntityManager) => {
        await journal.record([rolledBack], manager);
        throw new Error("the handler failed");
      }),
    ).rejects.toThrow("the handler failed");
    expect(await journal.search({ reference: committed.idempotencyKey as string })).toHaveLength(1);
    expect(await journal.search({ reference: rolledBack.idempotencyKey as string })).toHaveLength(0);
    await journal.close();
  });

  it("rejects with a typed error, without the entry's values, when the table refuses writes", async () => {
    const journal = await pgJournal();
    const table = `journal_${tables - 1}`;
    await pool.query(`CREATE OR REPLACE FUNCTION refuse_${table}() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'journal table is read-only'; END $$`);
    await pool.query(`CREATE TRIGGER refuse BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION refuse_${table}()`);
    const secret = "sk_live_SECRET_must_not_leak";
    const e = entry({ references: { qris_history_id: secret }, error: `token=${secret}` });
    const batched = await journal.record([e]).catch((error: unknown) => error);
    const client = await pool.connect();
    await client.query("BEGIN");
    const inTransaction = await journal.record([e], client).catch((error: unknown) => error);
    await client.query("ROLLBACK");
    client.release();
    for (const error of [batched, inTransaction]) {
      expect(error).toBeInstanceOf(DeliveryJournalWriteError);
      expect((error as DeliveryJournalWriteError).code).toBe("delivery_journal_write_failed");
      const shown = JSON.stringify(error, Object.getOwnPropertyNames(error)) + String((error as Error).cause);
      expect(shown).toContain("read-only");
      expect(shown).not.toContain(secret);
      expect(shown).not.toContain(server.url);
    }
    await journal.close();
  });

  it("ships a migration file identical to ensureSchema()", () => {
    const file = readFileSync(new URL("../../sql/postgres-journal.sql", import.meta.url), "utf8");
    const statements = file
      .split("\n")
      .filter((line) => !line.startsWith("--"))
      .join("\n")
      .split(";")
      .map((statement) => statement.trim())
      .filter(Boolean);
    expect(statements).toEqual(postgresJournalSchema());
  });

  it("finds an entry by reference through the reference indexes, not a scan of the table", async () => {
    let searchSql = "";
    let searchValues: unknown[] = [];
    const capturing = new Proxy(pool, {
      get(target, property, receiver) {
        if (property === "query") {
          return (text: string | { text: string }, values?: unknown[]) => {
            if (typeof text === "string" && text.includes(" UNION ")) [searchSql, searchValues] = [text, values ?? []];
            return target.query(text as string, values);
          };
        }
        return Reflect.get(target, property, receiver);
      },
    });
    const table = `journal_${tables++}`;
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

describe("PostgresIdempotencyStore.inspect", () => {
  it("shows the record's state and attempts, never its owner", async () => {
    const store = new PostgresIdempotencyStore({ pool, table: `events_${tables++}` });
    await store.ensureSchema();
    const key = unique("evt");
    expect(await store.inspect(key)).toBeUndefined();
    await store.claim(key, "owner-secret-token", 60_000);
    const held = await store.inspect(key);
    expect(held).toMatchObject({ key, state: "in_progress", attempt: 1 });
    expect(held?.expiresAt).toBeGreaterThan(Date.now());
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

describe("PostgresDeliveryJournal: the shared journal contract", () => {
  journalContract(async ({ retentionMs }) => {
    const journal = new PostgresDeliveryJournal({ pool, table: `journal_${tables++}`, retentionMs });
    await journal.ensureSchema();
    return journal;
  });
});
