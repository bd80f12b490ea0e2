import type { IdempotencyRecordView } from "../../journal/types.js";
import { raceTimer } from "../../timer-delay.js";
import { transactionalStage } from "../../webhooks/pipeline/transactional.js";
import { type BatchingOptions, KeyedBatcher } from "../keyed-batcher.js";
import { recordViewOf } from "../record-view.js";
import type { SqlBinding, SqlResult } from "../sql/binding.js";
import { type HeldTransaction, holdTransaction } from "../sql/callback-transaction.js";
import { takeConnectionTurn } from "../sql/connection-turn.js";
import { assertBindingDialect } from "../sql/dialect.js";
import {
  type ClaimResult,
  type IdempotencyStore,
  IdempotencyStoreUnavailableError,
  type IdempotencyTransaction,
  type TransactionalIdempotencyStore,
  type TransactionSql,
} from "../types.js";
import {
  claimBatchWith,
  completeBatchWith,
  type MysqlBatchCall,
  type MysqlBatchClaim,
  type MysqlBatchStatements,
  mysqlBatchStatements,
} from "./batch.js";
import { mysqlConnectionScope } from "./connection-scope.js";
import {
  claimInTransactionNoWaitWith,
  claimInTransactionWith,
  claimWith,
  completeWith,
  type MysqlStatementResult,
  releaseWith,
} from "./operations.js";
import { DEFAULT_MYSQL_IDEMPOTENCY_TABLE, mysqlIdempotencySchema, quotedMysqlTable } from "./schema.js";
import { type MysqlIdempotencyStatements, type MysqlStatement, mysqlIdempotencyStatements } from "./sql.js";
import { assertSupportedMysqlVersion, parseMysqlVersion } from "./version.js";

/**
 * What the store needs of a connection: `mysql2/promise`'s `Pool`, `PoolConnection` and `Connection` all have it.
 * Statements go through `execute` (server-side prepared, values never spliced into SQL text); `query` sends the
 * transaction statements and the sweep.
 */
export interface MysqlQueryable {
  query(sql: string, values?: unknown): PromiseLike<[unknown, unknown]>;
  execute(sql: string, values?: unknown): PromiseLike<[unknown, unknown]>;
}

/** A connection lent by a {@link MysqlPoolLike} (`mysql2/promise`'s `PoolConnection`). */
export interface MysqlPoolConnectionLike extends MysqlQueryable {
  /** Gives the connection back to its pool. */
  release(): void;
  /** Closes the connection and drops it from its pool (the server rolls back its transaction, frees its locks). */
  destroy(): void;
}

/** A `mysql2/promise` `Pool` (or anything that lends a connection it can take back or destroy). */
export interface MysqlPoolLike extends MysqlQueryable {
  getConnection(): PromiseLike<MysqlPoolConnectionLike>;
}

/** mysql2's callback-style `Pool` or `Connection`: its `promise()` wrapper is what the store uses. */
export interface MysqlCallbackApi<T> {
  promise(): T;
}

/**
 * Options of {@link MysqlIdempotencyStore}: give a `binding` to your database library (TypeORM, Prisma, Knex, Kysely,
 * Drizzle, Sequelize), a `mysql2` `pool`, or one `connection`.
 */
export interface MysqlIdempotencyStoreOptions<Tx = MysqlQueryable> {
  /**
   * Your database library, through its binding (`typeormBinding(dataSource)` from `@kirimbayar/core/typeorm`, ...):
   * the store's statements run through the library's own pool, and a transactional delivery runs in a transaction
   * the library opens, whose object the handlers get as `ctx.transaction`. The binding must report the affected rows
   * of a write. The event's lock is freed just before the commit (the library gives the connection back right
   * after), so a duplicate arriving in between waits only for that commit.
   */
  binding?: SqlBinding<Tx>;
  /**
   * A `mysql2` pool you created (`mysql2/promise`'s `createPool`, or the callback pool, whose `promise()` is used);
   * the store never ends it. No pool option is required: leases are computed by the server in UTC, so neither
   * `timezone` nor the session's `time_zone` matters, and `multipleStatements` is not used. Keep mysql2's default
   * `charset` (utf8mb4): keys are hashed by the server from the text it receives.
   */
  pool?: MysqlPoolLike | MysqlCallbackApi<MysqlPoolLike>;
  /**
   * One connection instead of a pool: operations take turns on it, and a transactional delivery holds it until it
   * commits. Stores and journals given the same connection (or its `promise()` wrapper) take those turns together,
   * so a journal's batch never joins a delivery's open transaction. For tests, local development and single-process
   * apps.
   */
  connection?: MysqlQueryable | MysqlCallbackApi<MysqlQueryable>;
  /** Table name, optionally database-qualified (`shop.webhook_events`); default `kirimbayar_idempotency`. */
  table?: string;
  /**
   * How long one statement of `claim`, `complete` and `release` may run (default 5,000 ms). On a pool, a statement
   * still out then fails (the receiver answers 503) and its connection is destroyed, so statements stuck on locked
   * rows or a dead server do not take every pooled connection and hold every later delivery behind them.
   */
  statementTimeoutMs?: number;
  /**
   * How a transactional delivery tells a concurrent duplicate (answered 409) at once, never after InnoDB's lock wait:
   * - `"named-lock"`: the claim takes the event's named lock without waiting (`GET_LOCK(name, 0)`) and frees it
   *   after the transaction ends: one more statement per delivery. MySQL and MariaDB.
   * - `"no-wait"`: MariaDB only: the claim's statements do not wait for row locks
   *   (`SET STATEMENT innodb_lock_wait_timeout = 0 FOR ...`), so the uncommitted record of the other delivery fails
   *   them at once. No lock to free: the transaction costs what a hand-rolled one does.
   * - `"auto"` (default): `"no-wait"` on MariaDB (read from `VERSION()` once), `"named-lock"` on MySQL and through a
   *   binding (whose libraries wrap the driver's lock error each their own way: set `"no-wait"` explicitly once you
   *   know yours passes the driver's error on, as `isMysqlLockConflict` reads it).
   */
  transactionalLocks?: "auto" | "named-lock" | "no-wait";
  /**
   * Gather concurrent claims (and completions) of the non-transactional mode into one multi-row statement each: a
   * call goes out at once while fewer than `maxInFlight` (default 2) of its kind are running, else with the next
   * batch (at most `maxSize`, default 200). A batch of new keys is one `INSERT IGNORE`, a batch of held keys one
   * `UPDATE`; a batch with duplicates or takeovers reads its keys back once and settles those one by one. Under load
   * this serves many deliveries per round trip and per durable commit; a lone delivery waits for nothing. A batch
   * still out after `timeoutMs` (default 5,000) fails its calls (claims it took late are given back). `false`: one
   * statement per call.
   */
  batching?: BatchingOptions | false;
}

const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;
/** How long an abandoned bound transaction waits for its event lock to be freed before it is rolled back anyway. */
const UNLOCK_WAIT_MS = 1_000;

/** The result of `execute`/`query`: rows for a read, a header with `affectedRows` for a write. */
function resultOf(answer: [unknown, unknown]): MysqlStatementResult {
  const [result] = answer;
  if (Array.isArray(result)) return { affectedRows: undefined, rows: result as Record<string, unknown>[] };
  return { affectedRows: Number((result as { affectedRows?: number } | undefined)?.affectedRows ?? 0), rows: [] };
}

/** Runs a statement: bound values through `execute`, a statement without values as plain text. */
async function send(connection: MysqlQueryable, statement: MysqlStatement): Promise<MysqlStatementResult> {
  const answer =
    statement.values.length === 0
      ? await connection.query(statement.sql)
      : await connection.execute(statement.sql, statement.values);
  return resultOf(answer);
}

/** The promise API of a mysql2 pool or connection, whichever style was given. */
function promiseApi<T>(given: T | MysqlCallbackApi<T>): T {
  const callbackStyle = given as Partial<MysqlCallbackApi<T>>;
  return typeof callbackStyle.promise === "function" ? callbackStyle.promise() : (given as T);
}

// A connection whose socket broke (the server died, the network dropped) must not go back to the pool.
function isFatal(error: unknown): boolean {
  return (error as { fatal?: unknown } | undefined)?.fatal === true;
}

/**
 * Idempotency store over the shop's own MySQL 8.0+ or MariaDB 10.6+ database, through `mysql2` (no dependency is
 * added: pass your pool). Claims, completion and release are atomic statements (concurrent claims and completions
 * share multi-row ones: see `batching`), so only the delivery holding an event's lease can finish it, and a lease that
 * ran out can be taken over. Keys of any length work: the primary key is their SHA-256 (see
 * {@link mysqlIdempotencySchema}), computed by the server.
 *
 * It is also a {@link TransactionalIdempotencyStore}: with `idempotency: { transactional: true }` the receiver
 * records the event in the same InnoDB transaction as the handlers' writes (`ctx.transaction` is the `mysql2`
 * connection holding it), so a crash or a handler error rolls both back and the redelivery applies the event once. A
 * concurrent duplicate is answered 409 at once: the delivery holds a named lock (`GET_LOCK(name, 0)`) on the event
 * until its transaction ends, and a duplicate that cannot take it does not wait.
 *
 * Create the table with {@link MysqlIdempotencyStore.ensureSchema} or the shipped migration
 * (`sql/mysql-idempotency.sql`), and call {@link MysqlIdempotencyStore.deleteExpired} now and then (e.g. daily).
 *
 * The type argument names what handlers get as `ctx.transaction` on a `mysql2` pool: the connection it lent
 * (`MysqlIdempotencyStore<PoolConnection>`); through a binding it is the library's transaction object, inferred.
 *
 * @example
 * import mysql, { type PoolConnection } from "mysql2/promise";
 * const store = new MysqlIdempotencyStore<PoolConnection>({ pool: mysql.createPool(process.env.DATABASE_URL!) });
 * await store.ensureSchema();
 * createWebhookReceiver({ source: "qris", verify, idempotency: { store, transactional: true } });
 */
export class MysqlIdempotencyStore<Tx = MysqlQueryable> implements IdempotencyStore, TransactionalIdempotencyStore<Tx> {
  readonly #binding: SqlBinding<Tx> | undefined;
  readonly #pool: MysqlPoolLike | undefined;
  readonly #connection: MysqlQueryable | undefined;
  readonly #schema: string[];
  readonly #table: string;
  readonly #statements: MysqlIdempotencyStatements;
  readonly #statementTimeoutMs: number;
  readonly #locks: "auto" | "named-lock" | "no-wait";
  /** Whether the server is MariaDB, read once (ensureSchema or the first transactional delivery). */
  #mariadb: Promise<boolean> | undefined;
  readonly #run = (statement: MysqlStatement) => this.#statement(statement);
  readonly #batch: MysqlBatchStatements;
  /** Batched claims and completions; `undefined` with `batching: false`. */
  readonly #claims: KeyedBatcher<MysqlBatchCall, MysqlBatchClaim> | undefined;
  readonly #completions: KeyedBatcher<MysqlBatchCall, true> | undefined;
  /** What the single connection's turns are taken on (shared with journals given the same connection). */
  readonly #turnScope: object | undefined;
  /** Runs `idempotency: { transactional: true }` deliveries (the receiver takes it from the store). */
  readonly transactionalStage = transactionalStage;
  /** Its transactions are on MySQL or MariaDB (the receiver checks its delivery journal against it). */
  readonly dialect = "mysql";

  constructor(options: MysqlIdempotencyStoreOptions<Tx>) {
    const { pool, connection, binding } = options ?? {};
    if ([pool, connection, binding].filter((given) => given !== undefined).length !== 1) {
      throw new TypeError(
        "MysqlIdempotencyStore: pass either binding (your database library's), pool (a mysql2 Pool) or connection (one connection)",
      );
    }
    if (binding !== undefined && (typeof binding.transaction !== "function" || typeof binding.query !== "function")) {
      throw new TypeError("MysqlIdempotencyStore: binding must come from a kirimbayar binding (e.g. typeormBinding)");
    }
    if (binding !== undefined) assertBindingDialect("mysql", binding);
    this.#binding = binding;
    const lent = pool === undefined ? undefined : promiseApi(pool);
    const single = connection === undefined ? undefined : promiseApi(connection);
    if (lent !== undefined && (typeof lent.execute !== "function" || typeof lent.getConnection !== "function")) {
      throw new TypeError("MysqlIdempotencyStore: pool must be a mysql2 Pool (execute and getConnection)");
    }
    if (single !== undefined && (typeof single.execute !== "function" || typeof single.query !== "function")) {
      throw new TypeError("MysqlIdempotencyStore: connection must be a mysql2 Connection (query and execute)");
    }
    const timeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
    if (!(timeout > 0)) throw new TypeError("MysqlIdempotencyStore: statementTimeoutMs must be a positive number");
    this.#pool = lent;
    this.#connection = single;
    this.#turnScope = connection === undefined ? undefined : mysqlConnectionScope(connection);
    const table = options.table ?? DEFAULT_MYSQL_IDEMPOTENCY_TABLE;
    this.#statements = mysqlIdempotencyStatements(table);
    this.#schema = mysqlIdempotencySchema(table);
    this.#table = quotedMysqlTable(table);
    this.#batch = mysqlBatchStatements(table);
    if (options.batching !== false) {
      // A claim batch that answered after its time limit failed the claims (answered 503): give the keys it took back
      // at once, or the provider's retries would be answered 409 until the lease ends.
      this.#claims = new KeyedBatcher(
        (calls) => claimBatchWith(this.#run, this.#batch, this.#statements, calls),
        options.batching,
        (call, row) => {
          if (row.state === "claimed") this.release(call.key, call.owner, call.ms).catch(() => {});
        },
      );
      this.#completions = new KeyedBatcher(
        (calls) => completeBatchWith(this.#run, this.#batch, this.#statements, calls),
        options.batching,
      );
    }
    this.#statementTimeoutMs = timeout;
    this.#locks = options.transactionalLocks ?? "auto";
    if (!["auto", "named-lock", "no-wait"].includes(this.#locks)) {
      throw new TypeError('MysqlIdempotencyStore: transactionalLocks must be "auto", "named-lock" or "no-wait"');
    }
  }

  /**
   * Creates the table if it does not exist (the shipped migration does the same), after checking the server: MySQL
   * before 8.0 or MariaDB before 10.6 is refused with a {@link MysqlServerVersionError} naming both versions.
   */
  async ensureSchema(): Promise<void> {
    const { rows } = await this.#statement({ sql: "SELECT VERSION() AS version", values: [], kind: "read" });
    const version = String(rows[0]?.version ?? "");
    assertSupportedMysqlVersion(version);
    this.#mariadb ??= Promise.resolve(parseMysqlVersion(version)?.product === "mariadb");
    for (const sql of this.#schema) await this.#statement({ sql, values: [], kind: "write" });
  }

  /** Deletes up to `limit` records past their retention (or lease); returns how many. Run it now and then. */
  async deleteExpired(limit = 10_000): Promise<number> {
    return (await this.#statement(this.#statements.sweep(limit))).affectedRows ?? 0;
  }

  /** What the console shows of `key`'s record (state, attempts, lease or retention end); never the owner token. */
  async inspect(key: string): Promise<IdempotencyRecordView | undefined> {
    const ms = (column: string) => `TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', ${column}) DIV 1000`;
    const sql = `SELECT state, attempts, ${ms("lease_expires_at")} AS lease_ms, ${ms("expires_at")} AS expires_ms,
  expires_at <= UTC_TIMESTAMP(6) AS expired FROM ${this.#table} WHERE key_hash = UNHEX(SHA2(?, 256))`;
    return recordViewOf(key, (await this.#statement({ sql, values: [key], kind: "read" })).rows[0]);
  }

  async claim(key: string, owner: string, leaseMs: number): Promise<ClaimResult> {
    if (this.#claims === undefined) return claimWith(this.#run, this.#statements, key, owner, leaseMs);
    const answer = await this.#claims.submit({ key, owner, ms: leaseMs }).catch(batchFailed);
    if (answer === undefined) throw unavailable("claim", new Error("the batch answered nothing for the key"));
    if (answer.state !== "claimed") return { state: answer.state };
    return answer.attempt === undefined ? { state: "claimed" } : { state: "claimed", attempt: answer.attempt };
  }

  async complete(key: string, owner: string, retentionMs: number): Promise<boolean> {
    if (this.#completions === undefined) return completeWith(this.#run, this.#statements, key, owner, retentionMs);
    return (await this.#completions.submit({ key, owner, ms: retentionMs }).catch(batchFailed)) === true;
  }

  release(key: string, owner: string, retentionMs: number): Promise<boolean> {
    return releaseWith(this.#run, this.#statements, key, owner, retentionMs);
  }

  /** Opens the transaction of one transactional delivery (see {@link TransactionalIdempotencyStore}). */
  async begin(): Promise<IdempotencyTransaction<Tx>> {
    if (this.#binding !== undefined) {
      let held: HeldTransaction<Tx>;
      try {
        held = await holdTransaction(this.#binding);
      } catch (error) {
        throw unavailable("BEGIN", error);
      }
      // Through a binding, "auto" keeps the named lock: each library wraps the driver's lock error its own way.
      return new BoundMysqlTransaction(this.#binding, held, this.#statements, this.#locks === "no-wait");
    }
    return (await this.#beginOnMysql2()) as unknown as IdempotencyTransaction<Tx>;
  }

  // The transactional claim's way of spotting a concurrent duplicate (see transactionalLocks).
  async #noWait(): Promise<boolean> {
    if (this.#locks !== "auto") return this.#locks === "no-wait";
    this.#mariadb ??= this.#statement({ sql: "SELECT VERSION() AS version", values: [], kind: "read" }).then(
      ({ rows }) => parseMysqlVersion(String(rows[0]?.version ?? ""))?.product === "mariadb",
    );
    const pending = this.#mariadb;
    // A failed look-up (the server away) is not remembered: the next delivery asks again.
    pending.catch(() => {
      if (this.#mariadb === pending) this.#mariadb = undefined;
    });
    return pending;
  }

  async #beginOnMysql2(): Promise<IdempotencyTransaction> {
    const noWait = await this.#noWait();
    if (this.#pool !== undefined) {
      let lent: MysqlPoolConnectionLike;
      try {
        lent = await this.#pool.getConnection();
      } catch (error) {
        throw unavailable("connect", error);
      }
      const done = (destroy: boolean) => (destroy ? lent.destroy() : lent.release());
      return new MysqlTransaction(lent, done, this.#statements, true, noWait);
    }
    const free = await this.#takeTurn();
    return new MysqlTransaction(this.#connection as MysqlQueryable, free, this.#statements, false, noWait);
  }

  // One statement outside any transaction, within the statement time limit.
  async #statement(statement: MysqlStatement): Promise<MysqlStatementResult> {
    if (this.#binding !== undefined) return this.#throughBinding(this.#binding, statement);
    if (this.#pool === undefined) return this.#onSingleConnection(statement);
    const timeout = this.#statementTimeoutMs;
    let timedOut = false;
    const lending = Promise.resolve(this.#pool.getConnection());
    let lent: MysqlPoolConnectionLike;
    try {
      lent = await raceTimer(lending, timeout, () => {
        timedOut = true;
        throw new Error(`no pooled connection within ${timeout} ms`);
      });
    } catch (error) {
      // A connection lent after the limit goes straight back.
      if (timedOut)
        lending.then(
          (late) => late.release(),
          () => {},
        );
      throw unavailable("connect", error);
    }
    const running = send(lent, statement);
    try {
      const result = await raceTimer(running, timeout, () => {
        timedOut = true;
        throw new Error(`statement still running after ${timeout} ms`);
      });
      lent.release();
      return result;
    } catch (error) {
      // Out of time: the connection is destroyed rather than returned busy (its statement may wait on a row lock for
      // innodb_lock_wait_timeout). A broken connection is destroyed too; after an SQL error it is fine.
      if (timedOut || isFatal(error)) lent.destroy();
      else lent.release();
      running.catch(() => {});
      throw unavailable("query", error);
    }
  }

  // The library runs it on its own pool; a statement past the limit is only given up on (its connection is the
  // library's to manage).
  async #throughBinding(binding: SqlBinding<Tx>, statement: MysqlStatement): Promise<MysqlStatementResult> {
    try {
      const running = Promise.resolve(binding.query(statement.sql, statement.values));
      running.catch(() => {});
      return await raceTimer(running, this.#statementTimeoutMs, () => {
        throw new Error(`statement still running after ${this.#statementTimeoutMs} ms`);
      });
    } catch (error) {
      throw unavailable("query", error);
    }
  }

  async #onSingleConnection(statement: MysqlStatement): Promise<MysqlStatementResult> {
    const free = await this.#takeTurn();
    const running = send(this.#connection as MysqlQueryable, statement);
    // The turn ends with the statement, even when the caller stopped waiting: the app's connection stays open.
    running.then(free, free);
    try {
      return await raceTimer(running, this.#statementTimeoutMs, () => {
        throw new Error(`statement still running after ${this.#statementTimeoutMs} ms`);
      });
    } catch (error) {
      throw unavailable("query", error);
    }
  }

  // The single connection, once free of every other turn on it: this store's and every journal's or store's given
  // the same connection (see connection-turn.ts). Call the returned function to free it again.
  #takeTurn(): Promise<() => void> {
    return takeConnectionTurn(this.#turnScope as object);
  }
}

/**
 * One delivery's InnoDB transaction on one connection: `START TRANSACTION`, the claim (which takes the event's named
 * lock), the handlers' statements, `COMMIT` or `ROLLBACK`, then the lock freed and the connection given back.
 */
class MysqlTransaction implements IdempotencyTransaction {
  #open = false;
  #ended = false;
  #abandoned = false;
  /** Statements of the store's own still running (a claim stuck past its time limit). */
  #inFlight = 0;
  /** The key whose named lock this session may hold. */
  #locked: string | undefined;
  /** Present on a pooled connection only (see {@link IdempotencyTransaction.abandon}). */
  readonly abandon?: () => void;
  #sql: TransactionSql | undefined;

  constructor(
    readonly handle: MysqlQueryable,
    /** Gives the connection back: `true` closes it instead (pooled), which also ends the transaction and lock. */
    private readonly done: (destroy: boolean) => void,
    private readonly statements: MysqlIdempotencyStatements,
    private readonly pooled: boolean,
    /** MariaDB's statements that fail at once on a held row, instead of the event's named lock. */
    private readonly noWait: boolean,
  ) {
    if (pooled) this.abandon = () => this.#abandon();
  }

  // The server rolls back the transaction of a closed connection and frees its named locks; whatever the handlers
  // send later fails on the closed connection.
  #abandon(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#abandoned = true;
    this.done(true);
  }

  /** Other statements of the transaction (the journal's entry), on its connection. */
  get sql(): TransactionSql {
    this.#sql ??= {
      dialect: "mysql",
      query: (sql, params) => {
        // Before the claim nothing is open; after the end the connection may serve another delivery.
        if (!this.#open || this.#ended) return Promise.reject(new Error("the delivery's transaction is not open"));
        return this.#send({ sql, values: params as MysqlStatement["values"], kind: "write" });
      },
    };
    return this.#sql;
  }

  async claim(key: string, retentionMs: number): Promise<ClaimResult> {
    try {
      this.#assertNotEnded();
      if (!this.#open) {
        this.#open = true;
        await this.#send({ sql: "START TRANSACTION", values: [], kind: "write" });
      }
      this.#assertNotEnded();
      const run = (statement: MysqlStatement) => this.#send(statement);
      if (this.noWait) return await claimInTransactionNoWaitWith(run, this.statements, key, retentionMs);
      this.#locked = key;
      return await claimInTransactionWith(run, this.statements, key, retentionMs);
    } catch (error) {
      throw unavailable("claim", error);
    }
  }

  async #send(statement: MysqlStatement): Promise<MysqlStatementResult> {
    this.#inFlight++;
    try {
      return await send(this.handle, statement);
    } finally {
      this.#inFlight--;
    }
  }

  // The transaction was ended while a statement before the claim was in flight (its time limit ran out and the
  // connection went back): opening it now would open it on a connection that may serve another delivery.
  #assertNotEnded(): void {
    if (this.#ended) throw new Error("the transaction was ended before its claim was sent");
  }

  async commit(): Promise<void> {
    if (this.#abandoned) throw unavailable("COMMIT", new Error("the transaction was abandoned"));
    await this.#end("COMMIT");
  }

  async rollback(): Promise<void> {
    await this.#end("ROLLBACK");
  }

  async #end(statement: "COMMIT" | "ROLLBACK"): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    // Nothing was sent yet: there is no transaction to end, only the connection to give back.
    if (!this.#open) return this.done(false);
    // A claim statement still running (it ran out of time): a pooled connection is closed rather than queued behind
    // it, which rolls the transaction back.
    if (this.#inFlight > 0 && this.pooled) {
      this.done(true);
      if (statement === "COMMIT") throw unavailable(statement, new Error("a statement of the claim is still running"));
      return;
    }
    try {
      await send(this.handle, { sql: statement, values: [], kind: "write" });
    } catch (error) {
      // The connection is in an unknown state: closing it also ends the transaction and frees the lock.
      this.done(this.pooled);
      throw unavailable(statement, error);
    }
    await this.#unlockThenGiveBack();
  }

  // Before the delivery is answered: a redelivery right after the answer must find the event free (and completed),
  // not still locked. A lock that cannot be freed goes with its connection.
  async #unlockThenGiveBack(): Promise<void> {
    const key = this.#locked;
    if (key === undefined) {
      this.done(false);
      return;
    }
    try {
      await send(this.handle, this.statements.unlock(key));
      this.done(false);
    } catch {
      this.done(this.pooled);
    }
  }
}

/**
 * One delivery's transaction opened by the app's own library through its binding: the claim runs as statements of
 * it, and the handlers get the library's transaction object. The event's lock is freed inside the transaction, just
 * before it ends: once the library commits, it gives the connection back, with no turn left to free it on.
 */
class BoundMysqlTransaction<Tx> implements IdempotencyTransaction<Tx> {
  #ended = false;
  #abandoned = false;
  #locked: string | undefined;
  #sql: TransactionSql | undefined;

  constructor(
    private readonly binding: SqlBinding<Tx>,
    private readonly held: HeldTransaction<Tx>,
    private readonly statements: MysqlIdempotencyStatements,
    /** MariaDB's statements that fail at once on a held row, instead of the event's named lock. */
    private readonly noWait: boolean,
  ) {}

  get handle(): Tx {
    return this.held.tx;
  }

  /** Other statements of the transaction (the journal's entry), through the library's transaction object. */
  get sql(): TransactionSql {
    this.#sql ??= {
      dialect: "mysql",
      query: (sql, params) =>
        this.#ended
          ? Promise.reject(new Error("the delivery's transaction is not open"))
          : this.binding.query(sql, params, this.held.tx),
    };
    return this.#sql;
  }

  #run = async (statement: MysqlStatement): Promise<MysqlStatementResult> => {
    const result: SqlResult = await this.binding.query(statement.sql, statement.values, this.held.tx);
    return { rows: result.rows, affectedRows: result.affectedRows };
  };

  async claim(key: string, retentionMs: number): Promise<ClaimResult> {
    try {
      if (this.#ended) throw new Error("the transaction was ended before its claim was sent");
      if (this.noWait) return await claimInTransactionNoWaitWith(this.#run, this.statements, key, retentionMs);
      this.#locked = key;
      return await claimInTransactionWith(this.#run, this.statements, key, retentionMs);
    } catch (error) {
      throw unavailable("claim", error);
    }
  }

  commit(): Promise<void> {
    if (this.#abandoned) return Promise.reject(unavailable("COMMIT", new Error("the transaction was abandoned")));
    return this.#end(true);
  }

  rollback(): Promise<void> {
    return this.#end(false);
  }

  // The event's lock is freed first, through the transaction (a library that rolls back and keeps the connection,
  // as Prisma does, would otherwise give it back to its pool still holding the lock, and every later delivery of the
  // event would be answered 409). Then the binding makes the transaction's later statements fail (closing its
  // connection where it can, which frees the lock too), and the transaction is rolled back without waiting for the
  // handlers: at most UNLOCK_WAIT_MS for the unlock, which may queue behind a handler's statement.
  abandon(): void {
    if (this.#ended) return;
    this.#abandoned = true;
    this.#ended = true;
    const key = this.#locked;
    const unlocking =
      key === undefined
        ? Promise.resolve()
        : this.#run(this.statements.unlock(key)).then(
            () => {},
            () => {},
          );
    try {
      this.binding.abandon(this.held.tx);
    } finally {
      raceTimer(unlocking, UNLOCK_WAIT_MS, () => {})
        .then(() => this.held.end(false))
        .catch(() => {});
    }
  }

  async #end(commit: boolean): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    let unlocked = true;
    if (this.#locked !== undefined) {
      try {
        await this.#run(this.statements.unlock(this.#locked));
      } catch {
        unlocked = false;
      }
    }
    try {
      // A lock that could not be freed means a broken connection: roll back rather than commit on it.
      await this.held.end(commit && unlocked);
    } catch (error) {
      throw unavailable(commit ? "COMMIT" : "ROLLBACK", error);
    }
    if (commit && !unlocked) throw unavailable("COMMIT", new Error("the event's lock could not be freed"));
  }
}

// A batch fails with the database's error (already wrapped) or the batcher's own time limit.
function batchFailed(error: unknown): never {
  throw unavailable("batched statement", error);
}

function unavailable(operation: string, error: unknown): IdempotencyStoreUnavailableError {
  if (error instanceof IdempotencyStoreUnavailableError) return error;
  return new IdempotencyStoreUnavailableError(`MySQL ${operation} failed`, { cause: error });
}
