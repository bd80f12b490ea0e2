import type { PgPoolLike, PgQueryable } from "../../idempotency/postgres/index.js";
import { statementName } from "../../idempotency/postgres/sql.js";
import {
  isPoolerStatementError,
  recordStatementRefusal,
  type StatementModeReport,
  sendNamedUnlessRefused,
  statementModeOf,
} from "../../idempotency/postgres/statement-mode.js";
import type { SqlBinding } from "../../idempotency/sql/binding.js";
import { inConnectionTurn } from "../../idempotency/sql/connection-turn.js";
import type { TransactionSql } from "../../idempotency/types.js";
import { type AnyLogger, webhookLoggerOf } from "../../webhooks/logger.js";
import { journalStage } from "../stage.js";
import {
  entryOf,
  JOURNAL_COLUMNS,
  JOURNAL_SOURCES,
  type JournalRow,
  NUL_ESCAPED_TEXT,
  normalizeQuery,
  outcomesJson,
  REFERENCE_FIELDS,
  reconcileRunOf,
  rowOf,
  summariesOf,
} from "../store-support/fields.js";
import {
  assertOneConnection,
  boundedRunLimit,
  insertInTransaction,
  retentionOf,
  SqlJournalWrites,
  SWEEP_BATCH,
  sweepExpired,
  writeOrFail,
} from "../store-support/sql-journal.js";
import type { JournalBatchingOptions } from "../store-support/write-behind.js";
import type {
  DeliveryJournal,
  JournalEntry,
  JournalQuery,
  JournalReconcileRun,
  JournalSourceSummary,
} from "../types.js";
import { DEFAULT_POSTGRES_JOURNAL_TABLE, postgresJournalSchema, quotedJournalTable, runsTableOf } from "./schema.js";

/**
 * Options of {@link PostgresDeliveryJournal}: one of `binding` (your database library's, as the idempotency store
 * takes it), `pool` (a `pg` Pool) or `client` (one connection), and how long entries are kept.
 */
export interface PostgresDeliveryJournalOptions<Tx = PgQueryable> {
  /** Your database library's binding (`prismaBinding(prisma)`, `typeormBinding(dataSource)`, …). */
  binding?: SqlBinding<Tx>;
  /** A `pg` Pool you created; the journal never ends it. */
  pool?: PgPoolLike;
  /**
   * One connection (`pg` Client, PGlite); for tests and single-process apps. The same object as the idempotency
   * store's is fine: they take turns on it, so a batch waits for a delivery's open transaction instead of joining it.
   */
  client?: PgQueryable;
  /**
   * Send the insert as a named prepared statement, parsed and planned once per connection (default: `true` with a
   * `pool`, which must then be `pg`'s; `false` with a `client`, which may be PGlite, and through a binding).
   * Behind a transaction-mode pooler (PgBouncer, Supavisor), which keeps no prepared statement between transactions,
   * nothing needs setting: the first insert it refuses switches the pool to unnamed statements (for the idempotency
   * store and inbox on the same pool too) and is sent again, logged once to `logger`. An entry refused inside a
   * delivery's transaction aborted that transaction: the receiver runs the delivery again without the entry in it
   * and records the entry after the answer, as for any failed entry. `false`: never named.
   */
  preparedStatements?: boolean;
  /**
   * Where the journal says that a pooler made it switch to unnamed statements (once per pool): console-style or
   * pino-style, default `console`.
   */
  logger?: AnyLogger;
  /** Table name, optionally schema-qualified; default `kirimbayar_delivery_journal` (runs: `<table>_runs`). */
  table?: string;
  /** How long entries and reconcile runs are kept (default 7 days); {@link PostgresDeliveryJournal.deleteExpired}. */
  retentionMs?: number;
  /** Store each entry's (already redacted) `body` (default `false`: bodies are dropped). */
  recordBodies?: boolean;
  /** Which process writes (`JournalEntry.instance`); default: the host name and pid where known. */
  instance?: string;
  /** How entries recorded outside a transaction are gathered into multi-row inserts. */
  batching?: JournalBatchingOptions;
  /** Hears of entries dropped because the batching buffer was full (`DeliveryJournalOverflowError`). */
  onError?: (error: unknown) => void;
}

/** The columns read back, with `at` as epoch ms. */
const SELECTED = `id, (extract(epoch FROM at) * 1000)::float8 AS at_ms, ${JOURNAL_COLUMNS.filter((c) => c !== "at").join(", ")}`;

/**
 * The delivery journal in the shop's PostgreSQL database, beside the idempotency records: one table of entries,
 * one of reconcile runs (create them with {@link PostgresDeliveryJournal.ensureSchema} or `sql/postgres-journal.sql`).
 *
 * A transactional delivery (`idempotency: { transactional: true }`) writes its entry as a statement of its own
 * transaction, on the `PostgresIdempotencyStore`'s connection whatever `pool`, `client` or `binding` this journal was
 * given, so the entry commits or rolls back with the effect (a failed insert there makes the receiver run the
 * delivery again without it and record the entry outside: the answer is unchanged). Beside a store of another
 * database the receiver refuses it when it is built. Other entries are batched: one multi-row `INSERT` per batch (see
 * `batching`); {@link PostgresDeliveryJournal.flush} writes them now, {@link PostgresDeliveryJournal.close} on
 * shutdown.
 *
 * Every value is a bound parameter (the batch travels as one JSON parameter); text is cut to its column's length.
 *
 * @example
 * const journal = new PostgresDeliveryJournal({ pool });
 * await journal.ensureSchema();
 * createWebhookReceiver({ source: "qris", verify, idempotency: { store }, journal });
 */
export class PostgresDeliveryJournal<Tx = PgQueryable> implements DeliveryJournal {
  /** `"postgres"`. */
  readonly kind = "postgres";
  /** Its statements are PostgreSQL's: a transactional delivery's entry goes through the delivery's transaction. */
  readonly dialect = "postgres";
  /** The receiver's journal stage, brought by the journal. */
  readonly journalStage = journalStage;
  /** Whether entries' bodies are stored. */
  readonly recordBodies: boolean;
  /** Which process writes, when the option named one. */
  readonly instance?: string;
  readonly #binding: SqlBinding<Tx> | undefined;
  readonly #connection: PgQueryable | undefined;
  /** The one connection (`client`) its statements take turns on with the store's transactions; none for a pool. */
  readonly #single: PgQueryable | undefined;
  readonly #schema: string[];
  readonly #retentionMs: number;
  readonly #writes: SqlJournalWrites<Tx & PgQueryable>;
  readonly #sql: Record<"insert" | "insertRun" | "runs" | "counts" | "lastSuccess" | "sweep" | "sweepRuns", string>;
  readonly #table: string;
  readonly #prepared: boolean;
  /** The insert's prepared-statement name: its text's (see `statementName`). */
  readonly #insertName: string;
  readonly #report: StatementModeReport;

  constructor(options: PostgresDeliveryJournalOptions<Tx>) {
    const { pool, client, binding } = options ?? {};
    assertOneConnection({
      journal: "PostgresDeliveryJournal",
      dialect: "postgres",
      binding,
      drivers: [pool, client],
      driverChoices: "pool (a pg Pool) or client (one connection)",
      bindingExample: "prismaBinding",
    });
    const connection = pool ?? client;
    if (connection !== undefined && typeof connection.query !== "function") {
      throw new TypeError("PostgresDeliveryJournal: pool or client must have query(text, values)");
    }
    this.#binding = binding;
    this.#connection = connection;
    this.#single = client;
    this.#prepared = binding === undefined && (options.preparedStatements ?? pool !== undefined);
    this.recordBodies = options.recordBodies === true;
    if (options.instance !== undefined) this.instance = options.instance;
    this.#retentionMs = retentionOf("PostgresDeliveryJournal", options.retentionMs);
    const table = options.table ?? DEFAULT_POSTGRES_JOURNAL_TABLE;
    this.#table = table;
    this.#report = { component: "PostgresDeliveryJournal", logger: webhookLoggerOf(options.logger ?? console) };
    this.#schema = postgresJournalSchema(table);
    const t = quotedJournalTable(table);
    const runs = quotedJournalTable(runsTableOf(table));
    const types = JOURNAL_COLUMNS.map((column) => `${column} ${RECORD_TYPES[column]}`).join(", ");
    this.#sql = {
      // The whole batch is one JSON parameter: one statement text whatever its size, values never in the SQL.
      insert: `INSERT INTO ${t} (${JOURNAL_COLUMNS.join(", ")})
SELECT ${JOURNAL_COLUMNS.map((column) => (column === "at" ? AT_FROM_MS : `i.${column}`)).join(", ")} FROM json_to_recordset($1::json) AS i(${types})`,
      insertRun: `INSERT INTO ${runs} (started_at, finished_at, reference_count, outcomes, instance)
VALUES ($1::timestamptz, $2::timestamptz, $3::integer, $4::jsonb, $5)`,
      runs: `SELECT id, (extract(epoch FROM started_at) * 1000)::float8 AS started_ms,
  (extract(epoch FROM finished_at) * 1000)::float8 AS finished_ms, reference_count, outcomes::text AS outcomes, instance
FROM ${runs} ORDER BY started_at DESC, id DESC LIMIT $1`,
      counts: `SELECT source, count(*)::int AS deliveries,
  count(*) FILTER (WHERE http_status >= 500)::int AS failures,
  count(*) FILTER (WHERE http_status >= 400 AND http_status < 500 AND http_status <> 409)::int AS refused,
  count(*) FILTER (WHERE outcome IN ('duplicate', 'in_progress'))::int AS duplicates
FROM ${t} WHERE at >= $1::timestamptz GROUP BY source`,
      // One index probe per source (source, at): the last success even when it is older than the window.
      lastSuccess: `SELECT s.source, (SELECT (extract(epoch FROM max(j.at)) * 1000)::float8 FROM ${t} j
  WHERE j.source = s.source AND j.origin = 'webhook' AND j.http_status BETWEEN 200 AND 299) AS last_ms
FROM (VALUES ${JOURNAL_SOURCES.map((source) => `('${source}')`).join(", ")}) AS s(source)`,
      sweep: `WITH gone AS (DELETE FROM ${t} WHERE id IN (SELECT id FROM ${t} WHERE at < $1::timestamptz LIMIT $2) RETURNING 1)
SELECT count(*)::int AS n FROM gone`,
      sweepRuns: `WITH gone AS (DELETE FROM ${runs} WHERE id IN (SELECT id FROM ${runs} WHERE finished_at < $1::timestamptz LIMIT $2) RETURNING 1)
SELECT count(*)::int AS n FROM gone`,
    };
    this.#insertName = statementName("journal_insert", this.#sql.insert);
    const writer = {
      label: "PostgreSQL journal",
      // The whole batch is one JSON parameter, sent as the named statement when prepared statements are on.
      insert: (rows: JournalRow[], tx?: Tx & PgQueryable) =>
        this.#run(this.#sql.insert, [batchJson(rows)], tx, this.#insertName),
      // A binding's Tx is whatever its library hands out; without a binding, a pg client holding the transaction.
      canWriteThrough: (transaction: unknown) =>
        this.#binding !== undefined || typeof (transaction as Partial<PgQueryable>).query === "function",
    };
    this.#writes = new SqlJournalWrites(this, writer, options);
  }

  /** Creates both tables and their indexes if they do not exist (the shipped migration does the same). */
  async ensureSchema(): Promise<void> {
    for (const text of this.#schema) await this.#run(text, []);
  }

  /** Entries dropped since the journal was built because its batching buffer was full. */
  get dropped(): number {
    return this.#writes.dropped;
  }

  /**
   * Records entries: through `transaction` when it is a transaction of this journal's connection kind (the binding's
   * `Tx`, or a `pg` client holding one), else batched. Rejects with a `DeliveryJournalWriteError` when they could not
   * be written (no value of the entries is in it).
   */
  record(entries: readonly JournalEntry[], transaction?: unknown): Promise<void> {
    const rows = entries.map((entry) => rowOf(entry, this.recordBodies, NUL_ESCAPED_TEXT));
    return this.#writes.record(rows, transaction);
  }

  /**
   * Records a transactional delivery's entries as one statement of its transaction, on the idempotency store's
   * connection (whatever `pool`, `client` or `binding` this journal was given), so they commit or roll back with the
   * effect. The receiver calls it; rejects with a `DeliveryJournalWriteError`.
   */
  recordInTransaction(entries: readonly JournalEntry[], transaction: TransactionSql): Promise<void> {
    const rows = entries.map((entry) => rowOf(entry, this.recordBodies, NUL_ESCAPED_TEXT));
    return insertInTransaction("PostgreSQL journal", "postgres", transaction, (sql) =>
      sql.query(this.#sql.insert, [batchJson(rows)], this.#insertName),
    );
  }

  async search(query: JournalQuery): Promise<JournalEntry[]> {
    const q = normalizeQuery(query, NUL_ESCAPED_TEXT);
    const values: unknown[] = [];
    const param = (value: unknown) => {
      values.push(value);
      return `$${values.length}`;
    };
    const filters: string[] = [];
    if (q.source !== undefined) filters.push(`source = ${param(q.source)}`);
    if (q.since !== undefined) filters.push(`at >= ${param(iso(q.since))}::timestamptz`);
    if (q.before !== undefined) filters.push(`at < ${param(iso(q.before))}::timestamptz`);
    if (q.outcomes !== undefined) {
      filters.push(q.outcomes.length === 0 ? "false" : `outcome IN (${q.outcomes.map((o) => param(o)).join(", ")})`);
    }
    const limit = param(q.limit);
    const table = quotedJournalTable(this.#table);
    const select = (match: string | undefined) => {
      const where = match === undefined ? filters : [match, ...filters];
      return `SELECT ${SELECTED} FROM ${table}${where.length > 0 ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY at DESC, id DESC LIMIT ${limit}`;
    };
    let sql = select(undefined);
    if (q.reference !== undefined) {
      // One branch per indexed column, each an index range newest first: O(matches), where an OR of six columns
      // may be planned as a backward scan of the time index that filters every row. UNION keeps a row once.
      const reference = param(q.reference);
      const key = param(q.key);
      const branches = [...REFERENCE_FIELDS.map((column) => `${column} = ${reference}`), `idempotency_key = ${key}`];
      sql = `SELECT * FROM (${branches.map((match) => `(${select(match)})`).join(" UNION ")}) AS found
ORDER BY at_ms DESC, id DESC LIMIT ${limit}`;
    }
    return (await this.#run(sql, values)).map((row) => entryOf(row, NUL_ESCAPED_TEXT));
  }

  async summarize(since: number): Promise<JournalSourceSummary[]> {
    const counts = await this.#run(this.#sql.counts, [iso(since)]);
    const last = await this.#run(this.#sql.lastSuccess, []);
    return summariesOf(counts, last);
  }

  async recordReconcileRun(run: JournalReconcileRun): Promise<void> {
    await writeOrFail("PostgreSQL journal", "reconcile run insert", () =>
      this.#run(this.#sql.insertRun, [
        iso(run.startedAt),
        iso(run.finishedAt),
        Math.max(0, Math.round(Number(run.references) || 0)),
        outcomesJson(run),
        NUL_ESCAPED_TEXT.store(run.instance, 128) ?? "",
      ]),
    );
  }

  async reconcileRuns(limit = 20): Promise<JournalReconcileRun[]> {
    return (await this.#run(this.#sql.runs, [boundedRunLimit(limit)])).map(reconcileRunOf);
  }

  /** Deletes entries (and reconcile runs) older than the retention, 5,000 rows per statement; returns the entries. */
  async deleteExpired(): Promise<number> {
    const cutoff = iso(Date.now() - this.#retentionMs);
    const sweep = async (sql: string) => Number((await this.#run(sql, [cutoff, SWEEP_BATCH]))[0]?.n ?? 0);
    return sweepExpired(
      () => sweep(this.#sql.sweep),
      () => sweep(this.#sql.sweepRuns),
    );
  }

  /** Writes the entries still buffered now (the timer would within `flushIntervalMs`). */
  async flush(): Promise<void> {
    // What receivers answered and handed over is recorded first (see journal/deferred.ts).
    await this.#writes.flush();
  }

  /** Writes what is still buffered; later `record()` calls reject. The connection you passed stays open. */
  async close(): Promise<void> {
    await this.#writes.close();
  }

  // Outside a transaction, a single `client` is used in turns with the store's statements and transactions on it
  // (see connection-turn.ts): sent while a delivery's transaction is open there, a batch would join it. Through `tx`
  // the statement is part of a transaction whose turn is already taken.
  #run(sql: string, values: unknown[], tx?: Tx & PgQueryable, name?: string): Promise<Record<string, unknown>[]> {
    const single = this.#single;
    if (tx !== undefined || single === undefined) return this.#send(sql, values, tx, name);
    return inConnectionTurn(single, () => this.#send(sql, values, tx, name));
  }

  async #send(
    sql: string,
    values: unknown[],
    tx?: Tx & PgQueryable,
    name?: string,
  ): Promise<Record<string, unknown>[]> {
    if (this.#binding !== undefined) {
      return (await this.#binding.query(sql, values, tx)).rows as Record<string, unknown>[];
    }
    const scope = this.#connection as PgQueryable;
    const on = tx ?? scope;
    const send = (named: boolean) =>
      named && name !== undefined
        ? (on.query as unknown as (config: object) => PromiseLike<{ rows: Record<string, unknown>[] }>).call(on, {
            name,
            text: sql,
            values,
          })
        : on.query(sql, values);
    if (!this.#prepared || name === undefined) return (await send(false)).rows;
    // Outside a transaction a refused insert is sent again unnamed. Inside the delivery's, the refusal aborted the
    // transaction: the switch is recorded and the failure passed on (the receiver runs the delivery again).
    if (tx === undefined) return (await sendNamedUnlessRefused(scope, send, this.#report)).rows;
    const named = statementModeOf(scope).named;
    try {
      return (await send(named)).rows;
    } catch (error) {
      if (named && isPoolerStatementError(error)) recordStatementRefusal(scope, "named", error, this.#report);
      throw error;
    }
  }
}

// json_to_recordset's column types (the table's own types, so the insert casts nothing twice).
const RECORD_TYPES: Record<(typeof JOURNAL_COLUMNS)[number], string> = {
  at: "bigint",
  source: "text",
  origin: "text",
  event: "text",
  state: "text",
  qris_history_id: "text",
  payment_id: "text",
  order_id: "text",
  order_no: "text",
  cnote: "text",
  idempotency_key: "text",
  attempt: "integer",
  http_status: "integer",
  outcome: "text",
  handler_ms: "double precision",
  error: "text",
  instance: "text",
  body: "text",
};

function batchJson(rows: readonly JournalRow[]): string {
  // Times travel as epoch ms (AT_FROM_MS): no Date nor ISO text per row; the rare one out of range is clamped.
  const inRange = rows.every((row) => row.at >= 0 && row.at <= MAX_TIME_MS);
  return JSON.stringify(inRange ? rows : rows.map((row) => ({ ...row, at: clampedTime(row.at) })));
}

/** The latest time PostgreSQL's timestamptz and the ISO form both hold: 9999-12-31T23:59:59Z. */
const MAX_TIME_MS = 253_402_300_799_000;
/** An entry's `at` (epoch ms, a bigint in the batch's JSON) as a timestamptz, exactly (interval arithmetic). */
const AT_FROM_MS = "'epoch'::timestamptz + i.at * interval '1 millisecond'";

function clampedTime(ms: number): number {
  return Math.min(MAX_TIME_MS, Math.max(0, Number.isFinite(ms) ? ms : 0));
}

/** Epoch ms as an ISO string PostgreSQL reads exactly; out-of-range times are clamped. */
function iso(ms: number): string {
  return new Date(clampedTime(ms)).toISOString();
}
