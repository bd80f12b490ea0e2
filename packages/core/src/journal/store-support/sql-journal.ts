// What the PostgreSQL and MySQL delivery journals share around their SQL: the choice of one connection, the
// retention, where recorded rows go (the delivery's transaction or the write-behind batches), the bounded retention
// sweep, the reconcile-run limit and the typed write error. Each dialect keeps its statement texts, its parameter
// encoding and its driver calls; these pieces are composed, not inherited, so the public classes stay as they are.
import type { SqlBinding } from "../../idempotency/sql/binding.js";
import { assertBindingDialect, type SqlDialect } from "../../idempotency/sql/dialect.js";
import type { TransactionSql } from "../../idempotency/types.js";
import { drainDeferredEntries } from "../deferred.js";
import type { DeliveryJournal } from "../types.js";
import { writeFailed } from "./errors.js";
import { DEFAULT_JOURNAL_RETENTION_MS, type JournalRow } from "./fields.js";
import { type JournalBatchingOptions, WriteBehind } from "./write-behind.js";

/** What an SQL journal's constructor checks of its connection options, and the words its errors use. */
export interface SqlJournalConnection<Tx> {
  /** The class name the errors start with (`PostgresDeliveryJournal`). */
  readonly journal: string;
  /** The database a binding must be for. */
  readonly dialect: SqlDialect;
  /** The `binding` option. */
  readonly binding: SqlBinding<Tx> | undefined;
  /** The driver options that stand instead of a binding (`pool`, `client`), as given. */
  readonly drivers: readonly unknown[];
  /** The driver options as the error names them after `binding` (`pool (a pg Pool) or client (one connection)`). */
  readonly driverChoices: string;
  /** A binding factory the error gives as an example (`prismaBinding`). */
  readonly bindingExample: string;
}

/**
 * Throws unless exactly one of the binding and the driver options was given, and a binding is a kirimbayar binding
 * for this dialect (checked when the journal is built: a wrong one would fail only at the first delivery).
 */
export function assertOneConnection<Tx>(connection: SqlJournalConnection<Tx>): void {
  const { journal, binding } = connection;
  if ([...connection.drivers, binding].filter((given) => given !== undefined).length !== 1) {
    throw new TypeError(`${journal}: pass one of binding, ${connection.driverChoices}`);
  }
  if (binding === undefined) return;
  if (typeof binding.query !== "function") {
    throw new TypeError(`${journal}: binding must come from a kirimbayar binding (e.g. ${connection.bindingExample})`);
  }
  assertBindingDialect(connection.dialect, binding);
}

/** The `retentionMs` option, 7 days when absent; throws (naming `journal`) unless it is a positive number. */
export function retentionOf(journal: string, retentionMs: number | undefined): number {
  const retention = retentionMs ?? DEFAULT_JOURNAL_RETENTION_MS;
  if (!Number.isFinite(retention) || retention <= 0) {
    throw new TypeError(`${journal}: retentionMs must be a positive number`);
  }
  return retention;
}

/**
 * Runs `write`; its failure becomes a `DeliveryJournalWriteError` naming the journal (`PostgreSQL journal`) and the
 * operation only, so no statement value (references, bodies) reaches the caller's logs.
 */
export async function writeOrFail(journal: string, operation: string, write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    throw writeFailed(journal, operation, error);
  }
}

/**
 * Runs a journal's insert as a statement of a delivery's transaction (`IdempotencyTransaction.sql`, on the store's
 * connection); rejects with a typed error naming only the journal when it fails, or when the transaction is on
 * another database than `dialect` (the receiver refuses that pairing when it is built).
 */
export function insertInTransaction(
  journal: string,
  dialect: SqlDialect,
  transaction: TransactionSql,
  insert: (transaction: TransactionSql) => PromiseLike<unknown>,
): Promise<void> {
  return writeOrFail(journal, "insert", async () => {
    if (transaction?.dialect !== dialect) {
      throw new TypeError(`the delivery's transaction is on ${String(transaction?.dialect)}, not ${dialect}`);
    }
    await insert(transaction);
  });
}

/** How an SQL journal's options say where batched writes go wrong and how they are gathered. */
export interface SqlJournalWriteOptions {
  /** How entries recorded outside a transaction are gathered into multi-row inserts. */
  readonly batching?: JournalBatchingOptions;
  /** Hears of entries dropped because the batching buffer was full. */
  readonly onError?: (error: unknown) => void;
}

/** What a dialect gives {@link SqlJournalWrites}: its one multi-row insert, and which transactions it can use. */
export interface SqlRowWriter<Tx> {
  /** The journal as its write errors name it (`PostgreSQL journal`). */
  readonly label: string;
  /** Inserts `rows` in one statement: through `transaction` when given, else on the journal's own connection. */
  insert(rows: JournalRow[], transaction?: Tx): Promise<unknown>;
  /** Whether `transaction` (neither `undefined` nor `null`) is one of this journal's kind, to write through. */
  canWriteThrough(transaction: unknown): boolean;
}

/**
 * Where an SQL journal's rows go: through the delivery's transaction when it is one the journal can use (so the
 * entry commits or rolls back with the effect), else into the write-behind buffer, one multi-row insert per batch.
 * Flushing and closing first record what receivers handed over (see journal/deferred.ts).
 */
export class SqlJournalWrites<Tx> {
  readonly #journal: DeliveryJournal;
  readonly #writer: SqlRowWriter<Tx>;
  readonly #buffer: WriteBehind<JournalRow>;

  /** `journal` is the one whose deferred entries are drained before a flush or close. */
  constructor(journal: DeliveryJournal, writer: SqlRowWriter<Tx>, options: SqlJournalWriteOptions) {
    this.#journal = journal;
    this.#writer = writer;
    this.#buffer = new WriteBehind(
      (rows) => this.#insert(rows),
      options.batching ?? {},
      (error) => {
        options.onError?.(error);
      },
    );
  }

  /** Entries dropped since the journal was built because its batching buffer was full. */
  get dropped(): number {
    return this.#buffer.dropped;
  }

  /** Writes `rows` through `transaction` when the journal can use it, else batched; rejects with a typed error. */
  record(rows: JournalRow[], transaction: unknown): Promise<void> {
    if (transaction !== undefined && transaction !== null && this.#writer.canWriteThrough(transaction)) {
      // A failed insert fails the delivery's transaction: the receiver then runs the delivery again without the
      // journal in it and records the entry outside (see DeliveryJournal.record), so no savepoint is needed.
      return this.#insert(rows, transaction as Tx);
    }
    return this.#buffer.add(rows);
  }

  /** Records the deferred entries, then writes what is buffered now. */
  async flush(): Promise<void> {
    await drainDeferredEntries(this.#journal);
    await this.#buffer.flush();
  }

  /** Records the deferred entries, then writes what is buffered; later `record()` calls reject. */
  async close(): Promise<void> {
    await drainDeferredEntries(this.#journal);
    await this.#buffer.close();
  }

  #insert(rows: JournalRow[], transaction?: Tx): Promise<void> {
    return writeOrFail(this.#writer.label, "insert", () => this.#writer.insert(rows, transaction));
  }
}

/** Rows one retention-sweep statement deletes at most: short statements, short locks. */
export const SWEEP_BATCH = 5_000;
/** Statements one sweep of a table runs at most, so `deleteExpired()` ends even while rows keep expiring. */
const SWEEP_ROUNDS = 200;

/**
 * Deletes entries, then reconcile runs, past retention: each `delete…` callback deletes at most {@link SWEEP_BATCH}
 * rows and says how many; a table is swept until a statement deletes fewer. Returns the entries deleted.
 */
export async function sweepExpired(
  deleteEntries: () => Promise<number>,
  deleteRuns: () => Promise<number>,
): Promise<number> {
  const deleted = await sweepTable(deleteEntries);
  await sweepTable(deleteRuns);
  return deleted;
}

async function sweepTable(deleteBatch: () => Promise<number>): Promise<number> {
  let deleted = 0;
  for (let round = 0; round < SWEEP_ROUNDS; round++) {
    const n = await deleteBatch();
    deleted += n;
    if (n < SWEEP_BATCH) break;
  }
  return deleted;
}

/** A `reconcileRuns(limit)` argument as a row count within 1..1,000 (20 when it is not a finite number). */
export function boundedRunLimit(limit: number): number {
  return Number.isFinite(limit) ? Math.min(1_000, Math.max(1, Math.floor(limit))) : 20;
}
