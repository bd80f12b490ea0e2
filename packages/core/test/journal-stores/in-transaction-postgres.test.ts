// A transactional delivery's journal entry commits with its effect on a real PostgreSQL, whatever connection the
// journal was given. The server itself says so: a trigger on the journal table records the transaction id and backend
// of the entry's INSERT, which must be those of the handler's write; the entry is seen inside the transaction before
// its COMMIT and outside only after; a lost COMMIT takes the entry with the effect. Stores over a pg pool (prepared
// statements on and off), a TypeORM binding and PGlite; journals over another pg pool, a TypeORM binding and PGlite.
import { PGlite } from "@electric-sql/pglite";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { statementName } from "../../src/idempotency/postgres/sql.js";
import { PostgresDeliveryJournal, PostgresIdempotencyStore, statementModeOf } from "../../src/postgres.js";
import { createGracefulShutdown } from "../../src/shutdown.js";
import { typeormBinding } from "../../src/typeorm.js";
import { createWebhookReceiver, type TransactionSql, tokenVerifier } from "../../src/webhooks.js";
import { type WatchableStore, watchedCommits } from "../support/watched-commits.js";
import { qrisSuccess, webhookRequest } from "../support/webhook-requests.js";

const TOKEN = "in-transaction-token";
const quiet = { warn: () => {}, error: () => {} };
let server: TestPostgresServer;
let storePool: pg.Pool;
let journalPool: pg.Pool;
let dataSource: DataSource;
let pglite: PGlite;
let shops = 0;

beforeAll(async () => {
  server = await startPostgresServer();
  storePool = new pg.Pool({ connectionString: server.url, max: 3 });
  journalPool = new pg.Pool({ connectionString: server.url, max: 2 });
  for (const pool of [storePool, journalPool]) pool.on("error", () => {});
  dataSource = new DataSource({ type: "postgres", url: server.url, poolSize: 3 });
  await dataSource.initialize();
  // Ready before the tests: its start compiles PostgreSQL's WebAssembly on this thread for seconds.
  pglite = new PGlite();
  await pglite.waitReady;
}, 60_000);

afterAll(async () => {
  await pglite?.close();
  await dataSource?.destroy();
  await journalPool?.end();
  await storePool?.end();
  await server?.destroy();
});

/** Runs a statement as the databases here all take it (pg, PGlite, TypeORM's EntityManager). */
type Runner = { query(sql: string, params?: unknown[]): Promise<unknown> };
const rowsOf = (result: unknown): Record<string, unknown>[] =>
  Array.isArray(result) ? result : (result as { rows: Record<string, unknown>[] }).rows;

interface Setup {
  /** Where the test reads and creates tables (the server, or the one PGlite). */
  readonly admin: Runner;
  store(table: string): WatchableStore<unknown>;
  journal(table: string): PostgresDeliveryJournal<unknown>;
  /** Whether the journal's own connection can read while the delivery's transaction is open (PGlite's cannot). */
  readonly readsBesideTransaction: boolean;
  /** Whether the entry's insert is prepared on the store's connection: where the store's own statements are. */
  readonly preparesInsert: boolean;
}

const onServer = { admin: { query: (sql: string, params?: unknown[]) => storePool.query(sql, params) } };
const setups: Record<string, () => Setup> = {
  "a pg pool store, the journal over another pg pool": () => ({
    ...onServer,
    store: (table) => new PostgresIdempotencyStore({ pool: storePool, table }),
    journal: (table) => new PostgresDeliveryJournal({ pool: journalPool, table }),
    readsBesideTransaction: true,
    preparesInsert: true,
  }),
  "a pg pool store tracked by the graceful shutdown, the journal over another pg pool": () => ({
    ...onServer,
    store: (table) =>
      createGracefulShutdown({ logger: quiet }).track(new PostgresIdempotencyStore({ pool: storePool, table })),
    journal: (table) => new PostgresDeliveryJournal({ pool: journalPool, table }),
    readsBesideTransaction: true,
    preparesInsert: true,
  }),
  "a pg pool store without prepared statements (PgBouncer), the journal over another pg pool": () => ({
    ...onServer,
    store: (table) => new PostgresIdempotencyStore({ pool: storePool, table, preparedStatements: false }),
    journal: (table) => new PostgresDeliveryJournal({ pool: journalPool, table }),
    readsBesideTransaction: true,
    preparesInsert: false,
  }),
  "a TypeORM-bound store, the journal over a pg pool": () => ({
    ...onServer,
    store: (table) => new PostgresIdempotencyStore({ binding: typeormBinding(dataSource), table }),
    journal: (table) => new PostgresDeliveryJournal({ pool: journalPool, table }),
    readsBesideTransaction: true,
    // The store names its statements to a binding, whose pg driver then prepares them (as the claim's).
    preparesInsert: true,
  }),
  "a pg pool store, the journal over a TypeORM binding": () => ({
    ...onServer,
    store: (table) => new PostgresIdempotencyStore({ pool: storePool, table }),
    journal: (table) => new PostgresDeliveryJournal({ binding: typeormBinding(dataSource), table }),
    readsBesideTransaction: true,
    preparesInsert: true,
  }),
  "a PGlite store and journal on one PGlite": () => ({
    admin: { query: (sql, params) => pglite.query(sql, params) },
    store: (table) => new PostgresIdempotencyStore({ client: pglite, table }),
    journal: (table) => new PostgresDeliveryJournal({ client: pglite, table }),
    readsBesideTransaction: false,
    preparesInsert: false,
  }),
};

/** A transactional QR receiver journalling into its own journal table, whose INSERTs the server notes. */
async function shop(setup: Setup, loseCommit = false) {
  const n = shops++;
  const { admin } = setup;
  await admin.query(`CREATE TABLE orders_${n} (history_id text PRIMARY KEY, txid bigint, pid integer)`);
  const store = setup.store(`events_${n}`);
  await store.ensureSchema();
  const journal = setup.journal(`journal_${n}`);
  await journal.ensureSchema();
  // The server's own view of each journal INSERT: its transaction and backend.
  await admin.query(`CREATE TABLE journal_tx_${n} (history_id text, outcome text, txid bigint, pid integer)`);
  await admin.query(`CREATE FUNCTION note_${n}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    INSERT INTO journal_tx_${n} VALUES (NEW.qris_history_id, NEW.outcome, txid_current(), pg_backend_pid());
    RETURN NEW; END $$`);
  await admin.query(`CREATE TRIGGER note BEFORE INSERT ON journal_${n} FOR EACH ROW EXECUTE FUNCTION note_${n}()`);
  const seen: { inside: number; outside: number | undefined; prepared: boolean }[] = [];
  const watched = watchedCommits(
    store,
    async (sql: TransactionSql) => {
      const inside = await sql.query(`SELECT count(*)::int AS n FROM journal_${n}`, []);
      // The journal's insert into this table, prepared under its name on this connection.
      const named = await sql.query(
        "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'kirimbayar_journal_insert_%' AND statement LIKE $1",
        [`%"journal_${n}"%`],
      );
      seen.push({
        inside: Number(inside.rows[0]?.n),
        outside: setup.readsBesideTransaction ? (await journal.search({ limit: 10 })).length : undefined,
        prepared: Number(named.rows[0]?.n) > 0,
      });
    },
    loseCommit,
  );
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    idempotency: { store: watched, transactional: true },
    logger: quiet,
    journal,
  }).on("payment.success", async (event, ctx) => {
    await (ctx.transaction as Runner).query(`INSERT INTO orders_${n} SELECT $1, txid_current(), pg_backend_pid()`, [
      String(event.data.qris_history_id),
    ]);
  });
  const deliver = (id: string) =>
    receiver.handle(
      webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) }),
    );
  const notes = async () =>
    rowsOf(await admin.query(`SELECT history_id, outcome, txid::text, pid FROM journal_tx_${n} ORDER BY txid`));
  const orders = async () => rowsOf(await admin.query(`SELECT history_id, txid::text, pid FROM orders_${n}`));
  return { journal, deliver, seen, notes, orders };
}

describe.each(Object.keys(setups))("the journal's entry in the delivery's transaction: %s", (name) => {
  const setup = () => (setups[name] as () => Setup)();

  it("is inserted in the handler's own transaction and backend, seen outside only after COMMIT", async () => {
    const { journal, deliver, seen, notes, orders } = await shop(setup());
    expect((await deliver("h-1")).status).toBe(200);
    const [effect] = await orders();
    const [note, ...more] = await notes();
    // Same transaction id and backend as the handler's write: the store's connection, not the journal's.
    expect(note).toEqual({ history_id: "h-1", outcome: "processed", txid: effect?.txid, pid: effect?.pid });
    expect(more).toEqual([]);
    const [before] = seen;
    expect(before?.inside).toBe(1);
    if (setup().readsBesideTransaction) expect(before?.outside).toBe(0);
    expect((await journal.search({ reference: "h-1" })).map((entry) => entry.outcome)).toEqual(["processed"]);
    // The insert is prepared on the store's connection exactly when the store's own statements are.
    expect(before?.prepared).toBe(setup().preparesInsert);
    await journal.close();
  });

  it("goes with a lost COMMIT: no effect, no processed entry, the delivery journalled as failed", async () => {
    const { journal, deliver, notes, orders } = await shop(setup(), true);
    expect((await deliver("h-2")).status).toBe(500);
    await vi.waitFor(
      async () => {
        await journal.flush();
        expect((await journal.search({ reference: "h-2" })).map((entry) => entry.outcome)).toEqual(["failed"]);
      },
      { timeout: 3_000, interval: 20 },
    );
    expect(await orders()).toEqual([]);
    // The processed entry's INSERT (and the trigger's note of it) was rolled back; only the failure was written.
    expect((await notes()).map((note) => note.outcome)).toEqual(["failed"]);
    await journal.close();
  });
});

describe("the journal's entry in the delivery's transaction, behind a pooler that refuses its named insert", () => {
  it("is written after the answer that once (the delivery run again without it), then in the transaction unnamed", async () => {
    // One connection whose server side already holds the insert's name, as behind a transaction-mode pooler: the
    // named insert's Parse is refused (42P05) inside the delivery's transaction, which PostgreSQL then aborts.
    const pool = new pg.Pool({ connectionString: server.url, max: 1 });
    pool.on("error", () => {});
    let occupied = false;
    pool.on("connect", (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      (client as unknown as { query: unknown }).query = async (...args: unknown[]) => {
        const config = args[0] as string | { text: string };
        const text = typeof config === "string" ? config : config.text;
        if (!occupied && text.startsWith("INSERT INTO") && text.includes('"journal_pooled"')) {
          occupied = true;
          await query(`PREPARE "${statementName("journal_insert", text)}" AS SELECT 1`);
        }
        return query(...args);
      };
    });
    const warnings: string[] = [];
    const logger = { warn: (message: string) => warnings.push(message), error: () => {} };
    try {
      await storePool.query("CREATE TABLE orders_pooled (history_id text PRIMARY KEY)");
      const store = new PostgresIdempotencyStore({ pool, table: "events_pooled", logger });
      await store.ensureSchema();
      const journal = new PostgresDeliveryJournal({ pool: journalPool, table: "journal_pooled" });
      await journal.ensureSchema();
      const inside: number[] = [];
      const watched = watchedCommits(store, async (sql) => {
        inside.push(Number((await sql.query("SELECT count(*)::int AS n FROM journal_pooled", [])).rows[0]?.n));
      });
      let runs = 0;
      const receiver = createWebhookReceiver({
        source: "qris",
        verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
        idempotency: { store: watched, transactional: true },
        logger: quiet,
        journal,
      }).on("payment.success", async (event, ctx) => {
        runs++;
        await (ctx.transaction as Runner).query("INSERT INTO orders_pooled VALUES ($1)", [
          String(event.data.qris_history_id),
        ]);
      });
      const deliver = (id: string) =>
        receiver.handle(
          webhookRequest({
            url: `/hook?token=${TOKEN}`,
            rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })),
          }),
        );
      expect((await deliver("p-1")).status).toBe(200);
      // The refused transaction was rolled back (nothing of it committed), the delivery ran again without the journal.
      expect(runs).toBe(2);
      expect(inside).toEqual([0]);
      expect(statementModeOf(pool).named).toBe(false);
      expect(warnings).toHaveLength(1);
      expect((await deliver("p-2")).status).toBe(200);
      expect(runs).toBe(3);
      expect(inside).toEqual([0, 1]);
      await journal.flush();
      for (const id of ["p-1", "p-2"]) {
        expect(
          (await journal.search({ reference: id })).map((entry) => entry.outcome),
          id,
        ).toEqual(["processed"]);
      }
      const { rows } = await storePool.query("SELECT history_id FROM orders_pooled ORDER BY history_id");
      expect(rows).toEqual([{ history_id: "p-1" }, { history_id: "p-2" }]);
      await journal.close();
    } finally {
      await pool.end();
    }
  });
});
