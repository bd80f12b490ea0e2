// What the PostgreSQL store, journal and TypeORM binding do when a transaction-mode pooler refuses a prepared
// statement (issue 37), on a real PostgreSQL server: the refusals are PostgreSQL's own (42P05 for a name the server
// connection already has, 26000 for one it lacks), provoked here on one connection the way a pooler provokes them
// across many (tests/poolers runs the same set-ups behind a real PgBouncer). Each refusal switches the pool for good,
// is logged once, and fails nothing: outside a transaction the statement is sent again; inside one, the aborted
// transaction is rolled back and opened again before anything else runs in it.
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import { DataSource, type EntityManager } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresIdempotencyStatements, statementName } from "../src/idempotency/postgres/sql.js";
import type { JournalEntry } from "../src/journal.js";
import {
  isPoolerStatementError,
  PostgresDeliveryJournal,
  PostgresIdempotencyStore,
  recordStatementRefusal,
  sendNamedUnlessRefused,
  statementModeOf,
} from "../src/postgres.js";
import { typeormBinding } from "../src/typeorm.js";

let server: TestPostgresServer;
let admin: pg.Pool;
let tables = 0;

beforeAll(async () => {
  server = await startPostgresServer();
  admin = new pg.Pool({ connectionString: server.url, max: 2 });
  admin.on("error", () => {});
}, 60_000);

afterAll(async () => {
  await admin?.end();
  await server?.destroy();
});

/** A logger that keeps what it was told. */
function captured() {
  const warnings: string[] = [];
  const debugs: string[] = [];
  return {
    warnings,
    debugs,
    warn: (message: string) => warnings.push(message),
    error: (message: string) => warnings.push(`error: ${message}`),
    debug: (message: string) => debugs.push(message),
  };
}

/** Runs a statement on the connection without recording it. */
type Raw = (text: string) => Promise<{ rows: unknown[] }>;

/**
 * A pool of one connection that records each statement it is sent (`named:<first word>` for a named one), and runs
 * `before(text, raw)` first: where a test makes the server connection hold or lack a name, as a pooler would.
 */
function recordingPool(before?: (text: string, raw: Raw) => Promise<void>) {
  const pool = new pg.Pool({ connectionString: server.url, max: 1 });
  pool.on("error", () => {});
  const sent: string[] = [];
  const wrapped = new WeakSet<object>();
  pool.on("connect", (client) => {
    if (wrapped.has(client)) return;
    wrapped.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    const raw: Raw = (text) => query(text) as Promise<{ rows: unknown[] }>;
    (client as unknown as { query: unknown }).query = async (...args: unknown[]) => {
      const config = args[0] as string | { name?: string; text: string };
      const text = typeof config === "string" ? config : config.text;
      const first = text.split(/[\s(]/)[0] as string;
      sent.push(typeof config === "object" && config.name ? `named:${first}` : first);
      await before?.(text, raw);
      return query(...args);
    };
  });
  return { pool, sent };
}

// The connection's own SQL PREPARE of `name` (quoted: protocol-level names keep their case) makes a protocol Parse of
// that name fail with 42P05, as a server connection that another client prepared it on does behind a pooler.
const occupy = (raw: Raw, name: string) => raw(`PREPARE "${name}" AS SELECT 1`);

// Deallocates `name` on the connection (if it is there), so that an EXECUTE of it fails with 26000, as on a server
// connection the pooler handed the EXECUTE to that never saw the PREPARE.
async function vacate(raw: Raw, name: string): Promise<void> {
  const { rows } = await raw(`SELECT 1 FROM pg_prepared_statements WHERE name = '${name}'`);
  if (rows.length > 0) await raw(`DEALLOCATE ${name}`);
}

describe("isPoolerStatementError", () => {
  it("recognises PostgreSQL's refusals, wrapped or not, and nothing else", () => {
    expect(isPoolerStatementError({ code: "42P05", message: 'prepared statement "a" already exists' })).toBe(true);
    expect(isPoolerStatementError({ code: "26000", message: 'prepared statement "a" does not exist' })).toBe(true);
    expect(isPoolerStatementError(new Error("wrapped", { cause: { code: "26000" } }))).toBe(true);
    expect(isPoolerStatementError(new Error('prepared statement "s_1" does not exist'))).toBe(true);
    expect(isPoolerStatementError(new Error("prepared statement name is already in use"))).toBe(true);
    expect(isPoolerStatementError(new Error("unnamed prepared statement does not exist"))).toBe(true);
    expect(isPoolerStatementError({ code: "23505", message: "duplicate key value" })).toBe(false);
    expect(isPoolerStatementError(new Error("connection terminated unexpectedly"))).toBe(false);
    expect(isPoolerStatementError(undefined)).toBe(false);
    expect(isPoolerStatementError("42P05")).toBe(false);
  });
});

describe("statement names", () => {
  it("name each statement by its text: another table, or another text, never shares a name", () => {
    const a = postgresIdempotencyStatements("shop_a");
    const b = postgresIdempotencyStatements("shop_b");
    const again = postgresIdempotencyStatements("shop_a");
    expect(a.statements.claim.name).toMatch(/^kirimbayar_claim_[0-9a-f]{16}$/);
    expect(a.statements.claim.name).toBe(again.statements.claim.name);
    expect(a.statements.claim.name).not.toBe(b.statements.claim.name);
    expect(a.transactionalClaimName).toMatch(/^kirimbayar_txclaim_[0-9a-f]{16}$/);
    expect(a.transactionalClaimName).not.toBe(b.transactionalClaimName);
    const names = Object.values(a.statements).map((statement) => statement.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of [...names, a.transactionalClaimName]) expect(Buffer.byteLength(name ?? "")).toBeLessThan(64);
  });
});

describe("the store behind a pooler that refuses named statements", () => {
  it("sends a refused statement again unnamed, switches the pool for good, and says so once", async () => {
    const table = `pooler_${tables++}`;
    const claimName = postgresIdempotencyStatements(table).statements.claim.name as string;
    const { pool, sent } = recordingPool(async (text, raw) => {
      if (text.startsWith("INSERT") && !sent.includes("occupied")) {
        sent.push("occupied");
        await occupy(raw, claimName);
      }
    });
    const logger = captured();
    try {
      const store = new PostgresIdempotencyStore({ pool, table, logger });
      await store.ensureSchema();
      expect(statementModeOf(pool)).toEqual({ sqlPrepare: true, named: true });
      expect(await store.claim("k-1", "o-1", 60_000)).toEqual({ state: "claimed", attempt: 1 });
      expect(statementModeOf(pool)).toEqual({ sqlPrepare: false, named: false });
      expect(await store.complete("k-1", "o-1", 60_000)).toBe(true);
      expect(await store.claim("k-1", "o-2", 60_000)).toEqual({ state: "completed" });
      // The claim: named (refused: its name taken on the connection), then unnamed; everything after unnamed.
      expect(sent.filter((s) => s !== "CREATE")).toEqual([
        "named:INSERT",
        "occupied",
        "INSERT",
        "INSERT",
        "INSERT",
        "SELECT",
      ]);
      expect(logger.warnings).toHaveLength(1);
      expect(logger.warnings[0]).toMatch(/PostgresIdempotencyStore: a connection pooler in transaction mode/);
      expect(logger.warnings[0]).toMatch(/SQLSTATE 42P05/);
      expect(logger.warnings[0]).not.toMatch(/127\.0\.0\.1|postgres:\/\//);
    } finally {
      await pool.end();
    }
  });

  it("an EXECUTE refused inside its transaction (26000): rolled back, opened again with the claim inlined; the handlers get it", async () => {
    const table = `pooler_${tables++}`;
    const { transactionalClaimName } = postgresIdempotencyStatements(table);
    // The PREPARE is lost before the EXECUTE, as when the pooler hands the EXECUTE to another server connection (a
    // pooler that keeps protocol-level names but no SQL PREPARE does it too: Neon, PgBouncer 1.21+).
    const { pool, sent } = recordingPool(async (text, raw) => {
      if (text.startsWith("BEGIN; EXECUTE")) await vacate(raw, transactionalClaimName);
    });
    const logger = captured();
    try {
      const store = new PostgresIdempotencyStore({ pool, table, logger });
      await store.ensureSchema();
      await admin.query("CREATE TABLE IF NOT EXISTS pooler_effects (k text)");
      sent.length = 0;
      const tx = await store.begin();
      expect(await tx.claim("k-1", 60_000)).toEqual({ state: "claimed", attempt: 1 });
      await tx.handle.query("INSERT INTO pooler_effects VALUES ('k-1')");
      await tx.commit();
      for (const key of ["k-2", "k-1"]) {
        const next = await store.begin();
        const claim = await next.claim(key, 60_000);
        await (claim.state === "claimed" ? next.commit() : next.rollback());
      }
      expect(sent).toEqual([
        ...["PREPARE", "BEGIN;", "ROLLBACK", "BEGIN;", "INSERT", "COMMIT"],
        ...["BEGIN;", "COMMIT"],
        ...["BEGIN;", "ROLLBACK"],
      ]);
      expect(statementModeOf(pool)).toEqual({ sqlPrepare: false, named: true });
      expect((await admin.query(`SELECT key FROM ${table} ORDER BY key`)).rows).toEqual([
        { key: "k-1" },
        { key: "k-2" },
      ]);
      expect((await admin.query("SELECT k FROM pooler_effects")).rows).toEqual([{ k: "k-1" }]);
      expect(logger.warnings).toHaveLength(1);
    } finally {
      await pool.end();
    }
  });

  it("a PREPARE refused (42P05: the name held on the server connection): the claim goes inlined behind BEGIN", async () => {
    const table = `pooler_${tables++}`;
    const { transactionalClaimName } = postgresIdempotencyStatements(table);
    const { pool, sent } = recordingPool(async (text, raw) => {
      if (text.startsWith("PREPARE kirimbayar_txclaim_")) await occupy(raw, transactionalClaimName);
    });
    const logger = captured();
    try {
      const store = new PostgresIdempotencyStore({ pool, table, logger });
      await store.ensureSchema();
      sent.length = 0;
      const tx = await store.begin();
      expect(await tx.claim("k-1", 60_000)).toEqual({ state: "claimed", attempt: 1 });
      await tx.commit();
      expect(sent).toEqual(["PREPARE", "BEGIN;", "COMMIT"]);
      expect((await admin.query(`SELECT key, state FROM ${table}`)).rows).toEqual([{ key: "k-1", state: "completed" }]);
      expect(logger.warnings).toHaveLength(1);
    } finally {
      await pool.end();
    }
  });

  it("preparedStatements: false never names a statement, so it never meets a refusal", async () => {
    const { pool, sent } = recordingPool();
    try {
      const store = new PostgresIdempotencyStore({ pool, table: `pooler_${tables++}`, preparedStatements: false });
      await store.ensureSchema();
      sent.length = 0;
      await store.claim("k", "o", 60_000);
      const tx = await store.begin();
      await tx.claim("k-2", 60_000);
      await tx.commit();
      expect(sent.some((statement) => statement.startsWith("named:") || statement === "PREPARE")).toBe(false);
    } finally {
      await pool.end();
    }
  });

  it("preparedStatements: true names a pg Client's statements, and switches it like a pool", async () => {
    const table = `pooler_${tables++}`;
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    const logger = captured();
    try {
      const store = new PostgresIdempotencyStore({ client, table, preparedStatements: true, logger });
      await store.ensureSchema();
      await client.query(`PREPARE "${postgresIdempotencyStatements(table).statements.claim.name}" AS SELECT 1`);
      expect(await store.claim("k", "o", 60_000)).toEqual({ state: "claimed", attempt: 1 });
      expect(statementModeOf(client).named).toBe(false);
      expect(logger.warnings).toHaveLength(1);
    } finally {
      await client.end();
    }
  });
});

describe("the delivery journal behind such a pooler", () => {
  it("outside a transaction: the refused insert is sent again unnamed; the store on the same pool switches with it", async () => {
    const { pool, sent } = recordingPool(async (text, raw) => {
      if (text.startsWith("INSERT") && !sent.includes("occupied")) {
        sent.push("occupied");
        await occupy(raw, statementName("journal_insert", text));
      }
    });
    const logger = captured();
    try {
      const journal = new PostgresDeliveryJournal({ pool, table: `journal_${tables++}`, logger });
      const store = new PostgresIdempotencyStore({ pool, table: `pooler_${tables++}`, logger });
      await journal.ensureSchema();
      await journal.record([entry("j-1")]);
      await journal.flush();
      expect((await journal.search({ reference: "j-1" })).map((found) => found.references.qris_history_id)).toEqual([
        "j-1",
      ]);
      expect(statementModeOf(pool).named).toBe(false);
      sent.length = 0;
      await store.ensureSchema();
      await store.claim("k", "o", 60_000);
      // The store never tries a name on a pool its journal found behind a pooler.
      expect(sent.filter((statement) => statement.startsWith("named:"))).toEqual([]);
      expect(logger.warnings).toHaveLength(1);
      expect(logger.warnings[0]).toMatch(/^PostgresDeliveryJournal: /);
    } finally {
      await pool.end();
    }
  });

  it("inside the delivery's transaction: the switch is recorded and the failure passed on (the receiver runs it again)", async () => {
    const { pool } = recordingPool(async (text, raw) => {
      if (text.startsWith("INSERT")) await occupy(raw, statementName("journal_insert", text));
    });
    const logger = captured();
    const table = `journal_${tables++}`;
    try {
      const journal = new PostgresDeliveryJournal({ pool, table, logger, batching: { flushIntervalMs: 1 } });
      await journal.ensureSchema();
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const rejected = journal.record([entry("j-2")], client);
        // The insert's name is taken on this connection: its Parse is refused (42P05) inside the transaction.
        await expect(rejected).rejects.toThrow();
        await client.query("ROLLBACK");
      } finally {
        client.release();
      }
      expect(statementModeOf(pool).named).toBe(false);
      expect(logger.warnings).toHaveLength(1);
    } finally {
      await pool.end();
    }
  }, 30_000);
});

/** A journal entry of a QRIS delivery. */
function entry(historyId: string): JournalEntry {
  return {
    at: Date.now(),
    source: "qris",
    origin: "webhook",
    event: "payment.success",
    references: { qris_history_id: historyId },
    idempotencyKey: `qris:payment.success:${historyId}`,
    httpStatus: 200,
    outcome: "processed",
    instance: "pooler-test",
  };
}

describe("the TypeORM binding's named claim behind such a pooler", () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await new DataSource({
      type: "postgres",
      url: server.url,
      poolSize: 1,
      logging: false,
    }).initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  it("rolls the refused claim's transaction back and opens another; the handlers' writes commit through it", async () => {
    const table = `typeorm_pooler_${tables++}`;
    const logger = captured();
    const binding = typeormBinding(dataSource);
    const store = new PostgresIdempotencyStore({ binding, table, logger });
    await store.ensureSchema();
    await dataSource.query("CREATE TABLE IF NOT EXISTS typeorm_pooler_effects (k text)");
    // The one pooled connection already holds the claim's name: its Parse is refused inside the transaction.
    await dataSource.query(
      `PREPARE "${postgresIdempotencyStatements(table).statements.claimNewInTransaction.name}" AS SELECT 1`,
    );
    const tx = await store.begin();
    const first = tx.handle;
    expect(await tx.claim("k-1", 60_000)).toEqual({ state: "claimed", attempt: 1 });
    expect(tx.handle).not.toBe(first); // a new transaction's EntityManager
    await (tx.handle as EntityManager).query("INSERT INTO typeorm_pooler_effects VALUES ('k-1')");
    await tx.commit();
    expect((await admin.query(`SELECT key FROM ${table}`)).rows).toEqual([{ key: "k-1" }]);
    expect((await admin.query("SELECT k FROM typeorm_pooler_effects")).rows).toEqual([{ k: "k-1" }]);
    expect(statementModeOf(binding).named).toBe(false);
    expect(logger.warnings).toHaveLength(1);
    // The next delivery sends its claim unnamed at once.
    const next = await store.begin();
    expect(next.handle).toBeDefined();
    expect(await next.claim("k-2", 60_000)).toEqual({ state: "claimed", attempt: 1 });
    await next.commit();
  });
});

describe("sendNamedUnlessRefused and recordStatementRefusal (the pg-boss inbox's way in)", () => {
  it("switch a scope once, log once, and pass other failures on", async () => {
    const scope = {};
    const logger = captured();
    const report = { component: "test", logger };
    const refusal = Object.assign(new Error('prepared statement "x" already exists'), { code: "42P05" });
    const calls: boolean[] = [];
    const answer = await sendNamedUnlessRefused(
      scope,
      async (named) => {
        calls.push(named);
        if (named) throw refusal;
        return "unnamed";
      },
      report,
    );
    expect(answer).toBe("unnamed");
    expect(calls).toEqual([true, false]);
    expect(await sendNamedUnlessRefused(scope, async (named) => (named ? "named" : "unnamed"), report)).toBe("unnamed");
    await expect(sendNamedUnlessRefused({}, async () => Promise.reject(new Error("boom")), report)).rejects.toThrow(
      "boom",
    );
    recordStatementRefusal(scope, "named", refusal, report);
    expect(logger.warnings).toHaveLength(1);
    const other = {};
    recordStatementRefusal(other, "sqlPrepare", refusal, report);
    expect(statementModeOf(other)).toEqual({ sqlPrepare: false, named: true });
    recordStatementRefusal(other, "named", refusal, report);
    expect(statementModeOf(other)).toEqual({ sqlPrepare: false, named: false });
    expect(logger.warnings).toHaveLength(2);
    expect(logger.debugs).toHaveLength(1);
  });
});
