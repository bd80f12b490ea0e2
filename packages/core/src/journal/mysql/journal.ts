import { mysqlConnectionScope } from "../../idempotency/mysql/connection-scope.js";
import type { MysqlCallbackApi, MysqlQueryable } from "../../idempotency/mysql/store.js";
import type { SqlBinding } from "../../idempotency/sql/binding.js";
import { inConnectionTurn } from "../../idempotency/sql/connection-turn.js";
import type { TransactionSql } from "../../idempotency/types.js";
import { journalStage } from "../stage.js";
import {
  entryOf,
  JOURNAL_COLUMNS,
  JOURNAL_SOURCES,
  type JournalRow,
  normalizeQuery,
  outcomesJson,
  REFERENCE_FIELDS,
  reconcileRunOf,
  rowOf,
  storable,
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
import { DEFAULT_MYSQL_JOURNAL_TABLE, mysqlJournalSchema, quotedMysqlJournalTable } from "./schema.js";

/**
 * Options of {@link MysqlDeliveryJournal}: one of `binding` (your database library's, as the idempotency store takes
 * it), `pool` (a `mysql2` pool) or `connection`, and how long entries are kept.
 */
export interface MysqlDeliveryJournalOptions<Tx = MysqlQueryable> {
  /** Your database library's binding (`typeormBinding(dataSource)`, `prismaBinding(prisma)`, …). */
  binding?: SqlBinding<Tx>;
  /** A `mysql2` pool you created (promise or callback style); the journal never ends it. */
  pool?: MysqlQueryable | MysqlCallbackApi<MysqlQueryable>;
  /**
   * One `mysql2` connection instead of a pool. The same connection as the idempotency store's is fine: they take
   * turns on it, so a batch waits for a delivery's open transaction instead of joining it.
   */
  connection?: MysqlQueryable | MysqlCallbackApi<MysqlQueryable>;
  /** Table name, optionally database-qualified; default `kirimbayar_delivery_journal` (runs: `<table>_runs`). */
  table?: string;
  /** How long entries and reconcile runs are kept (default 7 days); {@link MysqlDeliveryJournal.deleteExpired}. */
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

const EPOCH = "'1970-01-01 00:00:00'";
/** A DATETIME column as epoch ms, by arithmetic only (no time zone is involved). */
const epochMs = (column: string) => `TIMESTAMPDIFF(MICROSECOND, ${EPOCH}, ${column}) DIV 1000`;
const SELECTED = `id, ${epochMs("at")} AS at_ms, ${JOURNAL_COLUMNS.filter((c) => c !== "at").join(", ")}`;
const ROW_PLACEHOLDERS = `(${JOURNAL_COLUMNS.map(() => "?").join(", ")})`;

interface Result {
  readonly rows: Record<string, unknown>[];
  readonly affectedRows: number;
}

/**
 * The delivery journal in the shop's MySQL 8.0+ or MariaDB 10.6+ database, beside the idempotency records: one
 * table of entries and one of reconcile runs (create them with {@link MysqlDeliveryJournal.ensureSchema} or
 * `sql/mysql-journal.sql`).
 *
 * A transactional delivery (`idempotency: { transactional: true }`) writes its entry as a statement of its own
 * transaction, on the `MysqlIdempotencyStore`'s connection whatever `pool`, `connection` or `binding` this journal was
 * given (`MysqlDeliveryJournal({ pool })` beside a TypeORM-bound store included), so the entry commits or rolls back
 * with the effect. Beside a store of another database the receiver refuses it when it is built. Other entries are
 * batched: one multi-row `INSERT` per batch (see `batching`); {@link MysqlDeliveryJournal.flush} writes them now,
 * {@link MysqlDeliveryJournal.close} on shutdown. Every value is a bound parameter (`execute`:
 * server-side prepared); text is cut to its column's length; times are UTC whatever the session's `time_zone`.
 *
 * @example
 * const journal = new MysqlDeliveryJournal({ pool });
 * await journal.ensureSchema();
 * createWebhookReceiver({ source: "qris", verify, idempotency: { store }, journal });
 */
export class MysqlDeliveryJournal<Tx = MysqlQueryable> implements DeliveryJournal {
  /** `"mysql"`. */
  readonly kind = "mysql";
  /** Its statements are MySQL's: a transactional delivery's entry goes through the delivery's transaction. */
  readonly dialect = "mysql";
  /** The receiver's journal stage, brought by the journal. */
  readonly journalStage = journalStage;
  /** Whether entries' bodies are stored. */
  readonly recordBodies: boolean;
  /** Which process writes, when the option named one. */
  readonly instance?: string;
  readonly #binding: SqlBinding<Tx> | undefined;
  readonly #connection: MysqlQueryable | undefined;
  /** What a single `connection`'s turns are taken on, with the store's transactions; none for a pool. */
  readonly #single: object | undefined;
  readonly #schema: string[];
  readonly #retentionMs: number;
  readonly #writes: SqlJournalWrites<Tx & MysqlQueryable>;
  readonly #table: string;
  readonly #runs: string;

  constructor(options: MysqlDeliveryJournalOptions<Tx>) {
    const { pool, connection, binding } = options ?? {};
    assertOneConnection({
      journal: "MysqlDeliveryJournal",
      dialect: "mysql",
      binding,
      drivers: [pool, connection],
      driverChoices: "pool (a mysql2 Pool) or connection",
      bindingExample: "typeormBinding",
    });
    const given = pool ?? connection;
    const queryable = given === undefined ? undefined : promiseApi(given);
    if (queryable !== undefined && typeof queryable.execute !== "function") {
      throw new TypeError("MysqlDeliveryJournal: pool or connection must be mysql2's (execute and query)");
    }
    this.#binding = binding;
    this.#connection = queryable;
    this.#single = connection === undefined ? undefined : mysqlConnectionScope(connection);
    this.recordBodies = options.recordBodies === true;
    if (options.instance !== undefined) this.instance = options.instance;
    this.#retentionMs = retentionOf("MysqlDeliveryJournal", options.retentionMs);
    const table = options.table ?? DEFAULT_MYSQL_JOURNAL_TABLE;
    this.#schema = mysqlJournalSchema(table);
    this.#table = quotedMysqlJournalTable(table);
    this.#runs = quotedMysqlJournalTable(`${table}_runs`);
    const writer = {
      label: "MySQL journal",
      insert: (rows: JournalRow[], tx?: Tx & MysqlQueryable) => this.#insert(rows, tx),
      // A binding's Tx is whatever its library hands out; without a binding, a mysql2 connection holding it.
      canWriteThrough: (transaction: unknown) =>
        this.#binding !== undefined || typeof (transaction as Partial<MysqlQueryable>).execute === "function",
    };
    this.#writes = new SqlJournalWrites(this, writer, options);
  }

  /** Creates both tables if they do not exist (the shipped migration does the same). */
  async ensureSchema(): Promise<void> {
    for (const sql of this.#schema) await this.#run(sql, []);
  }

  /** Entries dropped since the journal was built because its batching buffer was full. */
  get dropped(): number {
    return this.#writes.dropped;
  }

  /**
   * Records entries: through `transaction` when it is a transaction of this journal's connection kind (the binding's
   * `Tx`, or a `mysql2` connection holding one), else batched. Rejects with a `DeliveryJournalWriteError` when they
   * could not be written (no value of the entries is in it).
   */
  record(entries: readonly JournalEntry[], transaction?: unknown): Promise<void> {
    const rows = entries.map((entry) => rowOf(entry, this.recordBodies));
    return this.#writes.record(rows, transaction);
  }

  /**
   * Records a transactional delivery's entries as one statement of its transaction, on the idempotency store's
   * connection (whatever `pool`, `connection` or `binding` this journal was given), so they commit or roll back with
   * the effect. The receiver calls it; rejects with a `DeliveryJournalWriteError`.
   */
  recordInTransaction(entries: readonly JournalEntry[], transaction: TransactionSql): Promise<void> {
    const { sql, values } = this.#insertStatement(entries.map((entry) => rowOf(entry, this.recordBodies)));
    return insertInTransaction("MySQL journal", "mysql", transaction, (through) => through.query(sql, values));
  }

  async search(query: JournalQuery): Promise<JournalEntry[]> {
    const q = normalizeQuery(query);
    const filters: string[] = [];
    const filterValues: unknown[] = [];
    if (q.source !== undefined) {
      filters.push("source = ?");
      filterValues.push(q.source);
    }
    if (q.since !== undefined) {
      filters.push("at >= ?");
      filterValues.push(utc(q.since));
    }
    if (q.before !== undefined) {
      filters.push("at < ?");
      filterValues.push(utc(q.before));
    }
    if (q.outcomes !== undefined) {
      filters.push(q.outcomes.length === 0 ? "FALSE" : `outcome IN (${q.outcomes.map(() => "?").join(", ")})`);
      filterValues.push(...q.outcomes);
    }
    // `limit` is an integer in 1..1,000 (normalizeQuery): inlined, as prepared LIMIT parameters vary by server.
    const tail = `ORDER BY at DESC, id DESC LIMIT ${q.limit}`;
    const select = (match: string | undefined) => {
      const where = match === undefined ? filters : [match, ...filters];
      return `SELECT ${SELECTED} FROM ${this.#table}${where.length > 0 ? ` WHERE ${where.join(" AND ")}` : ""} ${tail}`;
    };
    if (q.reference === undefined)
      return (await this.#run(select(undefined), filterValues)).rows.map((row) => entryOf(row));
    // One branch per indexed column, each an index range newest first: O(matches), whatever the optimizer thinks
    // of an OR across six indexes. UNION (not ALL) keeps a row once when two of its columns match.
    const branches = [...REFERENCE_FIELDS, "idempotency_key"].map((column) => `(${select(`${column} = ?`)})`);
    const values = [...REFERENCE_FIELDS, "idempotency_key"].flatMap((column) => [
      column === "idempotency_key" ? q.key : q.reference,
      ...filterValues,
    ]);
    const sql = `SELECT * FROM (${branches.join(" UNION ")}) AS found ORDER BY at_ms DESC, id DESC LIMIT ${q.limit}`;
    return (await this.#run(sql, values)).rows.map((row) => entryOf(row));
  }

  async summarize(since: number): Promise<JournalSourceSummary[]> {
    const counts = await this.#run(
      `SELECT source, COUNT(*) AS deliveries, SUM(http_status >= 500) AS failures,
  SUM(http_status >= 400 AND http_status < 500 AND http_status <> 409) AS refused,
  SUM(outcome IN ('duplicate', 'in_progress')) AS duplicates
FROM ${this.#table} WHERE at >= ? GROUP BY source`,
      [utc(since)],
    );
    // One index probe per source (source, at), newest first: the last success even before the window.
    const last = await this.#run(
      JOURNAL_SOURCES.map(
        (source) => `SELECT '${source}' AS source, (SELECT ${epochMs("at")} FROM ${this.#table}
  WHERE source = '${source}' AND origin = 'webhook' AND http_status BETWEEN 200 AND 299 ORDER BY at DESC LIMIT 1) AS last_ms`,
      ).join(" UNION ALL "),
      [],
    );
    return summariesOf(counts.rows, last.rows);
  }

  async recordReconcileRun(run: JournalReconcileRun): Promise<void> {
    await writeOrFail("MySQL journal", "reconcile run insert", () =>
      this.#run(
        `INSERT INTO ${this.#runs} (started_at, finished_at, reference_count, outcomes, instance) VALUES (?, ?, ?, ?, ?)`,
        [
          utc(run.startedAt),
          utc(run.finishedAt),
          Math.max(0, Math.min(2_147_483_647, Math.round(Number(run.references) || 0))),
          outcomesJson(run),
          storable(run.instance, 128) ?? "",
        ],
      ),
    );
  }

  async reconcileRuns(limit = 20): Promise<JournalReconcileRun[]> {
    const bounded = boundedRunLimit(limit);
    const { rows } = await this.#run(
      `SELECT id, ${epochMs("started_at")} AS started_ms, ${epochMs("finished_at")} AS finished_ms, reference_count,
  outcomes, instance FROM ${this.#runs} ORDER BY started_at DESC, id DESC LIMIT ${bounded}`,
      [],
    );
    return rows.map(reconcileRunOf);
  }

  /** Deletes entries (and reconcile runs) older than the retention, 5,000 rows per statement; returns the entries. */
  async deleteExpired(): Promise<number> {
    const cutoff = utc(Date.now() - this.#retentionMs);
    const sweep = async (table: string, column: string) =>
      (await this.#run(`DELETE FROM ${table} WHERE ${column} < ? ORDER BY ${column} LIMIT ${SWEEP_BATCH}`, [cutoff]))
        .affectedRows;
    return sweepExpired(
      () => sweep(this.#table, "at"),
      () => sweep(this.#runs, "finished_at"),
    );
  }

  /** Writes the entries still buffered now (the timer would within `flushIntervalMs`). */
  async flush(): Promise<void> {
    // What receivers answered and handed over is recorded first (see journal/deferred.ts).
    await this.#writes.flush();
  }

  /** Writes what is still buffered; later `record()` calls reject. The pool you passed stays open. */
  async close(): Promise<void> {
    await this.#writes.close();
  }

  /** One multi-row insert of `rows` (every value a placeholder), through `tx` when given. */
  #insert(rows: JournalRow[], tx?: Tx & MysqlQueryable): Promise<Result> {
    const { sql, values } = this.#insertStatement(rows);
    return this.#run(sql, values, tx);
  }

  #insertStatement(rows: JournalRow[]): { sql: string; values: unknown[] } {
    const sql = `INSERT INTO ${this.#table} (${JOURNAL_COLUMNS.join(", ")}) VALUES ${rows.map(() => ROW_PLACEHOLDERS).join(", ")}`;
    const values = rows.flatMap((row) =>
      JOURNAL_COLUMNS.map((column) => (column === "at" ? utc(row.at) : row[column])),
    );
    return { sql, values };
  }

  // Outside a transaction, a single `connection` is used in turns with the store's statements and transactions on it
  // (see connection-turn.ts): sent while a delivery's transaction is open there, a batch would join it. Through `tx`
  // the statement is part of a transaction whose turn is already taken.
  #run(sql: string, values: unknown[], tx?: Tx & MysqlQueryable): Promise<Result> {
    const single = this.#single;
    if (tx !== undefined || single === undefined) return this.#send(sql, values, tx);
    return inConnectionTurn(single, () => this.#send(sql, values, tx));
  }

  async #send(sql: string, values: unknown[], tx?: Tx & MysqlQueryable): Promise<Result> {
    if (this.#binding !== undefined) {
      const { rows, affectedRows } = await this.#binding.query(sql, values, tx);
      return { rows: rows as Record<string, unknown>[], affectedRows: Number(affectedRows ?? 0) };
    }
    const on = tx ?? (this.#connection as MysqlQueryable);
    const [result] = values.length === 0 ? await on.query(sql) : await on.execute(sql, values);
    if (Array.isArray(result)) return { rows: result as Record<string, unknown>[], affectedRows: 0 };
    return { rows: [], affectedRows: Number((result as { affectedRows?: number } | undefined)?.affectedRows ?? 0) };
  }
}

/** The promise API of a mysql2 pool or connection, whichever style was given. */
function promiseApi(given: MysqlQueryable | MysqlCallbackApi<MysqlQueryable>): MysqlQueryable {
  const callbackStyle = given as Partial<MysqlCallbackApi<MysqlQueryable>>;
  return typeof callbackStyle.promise === "function" ? callbackStyle.promise() : (given as MysqlQueryable);
}

/** Epoch ms as the UTC text a DATETIME(3) takes (`2026-11-27 23:09:15.123`); out-of-range times are clamped. */
function utc(ms: number): string {
  const clamped = Math.min(253_402_300_799_000, Math.max(0, Number.isFinite(ms) ? ms : 0));
  return new Date(clamped).toISOString().slice(0, 23).replace("T", " ");
}
