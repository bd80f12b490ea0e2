import type { IdempotencyRecordView } from "../../journal/types.js";
import { type AnyLogger, webhookLoggerOf } from "../../webhooks/logger.js";
import { transactionalStage } from "../../webhooks/pipeline/transactional.js";
import { type BatchingOptions, KeyedBatcher } from "../keyed-batcher.js";
import { recordViewOf } from "../record-view.js";
import type { SqlBinding } from "../sql/binding.js";
import { type HeldTransaction, holdTransaction } from "../sql/callback-transaction.js";
import { takeConnectionTurn } from "../sql/connection-turn.js";
import { assertBindingDialect } from "../sql/dialect.js";
import type { ClaimResult, IdempotencyStore, IdempotencyTransaction, TransactionalIdempotencyStore } from "../types.js";
import { type BoundClaimTexts, BoundTransaction } from "./bound-transaction.js";
import { CallbackTransaction, type CallbackTransactions } from "./callback-transaction.js";
import {
  type PgPoolClientLike,
  type PgPoolLike,
  type PgQueryable,
  type QueryResult,
  runOn,
  type Statement,
} from "./connection.js";
import { unavailable } from "./errors.js";
import { PostgresTransaction, type StatementScope, type TransactionalClaimStatement } from "./pg-transaction.js";
import { DEFAULT_POSTGRES_IDEMPOTENCY_TABLE, postgresIdempotencySchema, quotedTable } from "./schema.js";
import { type PostgresStatementName, postgresIdempotencyStatements } from "./sql.js";
import { sendNamedUnlessRefused } from "./statement-mode.js";

/**
 * Options of {@link PostgresIdempotencyStore}: give a `binding` to your database library (Prisma, TypeORM, Knex,
 * Kysely, Drizzle, Sequelize), a `pg` `pool`, or one `client` connection.
 */
export interface PostgresIdempotencyStoreOptions<Tx = PgQueryable> {
  /**
   * Your database library, through its binding (`prismaBinding(prisma)` from `@kirimbayar/core/prisma`,
   * `typeormBinding(dataSource)`, ...): the store's statements run through the library's own connections, and a
   * transactional delivery runs in a transaction the library opens, whose object the handlers get as
   * `ctx.transaction`, typed (Prisma's `tx`, TypeORM's `EntityManager`, ...). No second pool for the store.
   */
  binding?: SqlBinding<Tx>;
  /** A `pg` `Pool` you created; the store never ends it. Transactions run on a connection it lends. */
  pool?: PgPoolLike;
  /**
   * One connection (`pg` `Client`, PGlite) instead of a pool: operations take turns on it, and a transactional
   * delivery holds it until it commits. Stores and journals given the same object take those turns together, so a
   * journal's batch never joins a delivery's open transaction. For tests, local development and single-process apps.
   */
  client?: PgQueryable;
  /** Table name, optionally schema-qualified (`shop.webhook_events`); default `kirimbayar_idempotency`. */
  table?: string;
  /**
   * Prepared statements: the store's statements parsed and planned once per connection, and a transactional
   * delivery opening its transaction and claiming in one round trip (`BEGIN; EXECUTE …`, after one SQL `PREPARE` per
   * connection). Default: on with a `pool` (which must then be `pg`'s) and a `binding`, off with a `client` (which
   * may be PGlite).
   *
   * Behind a connection pooler in transaction mode (the pooled URLs of Supabase, Neon, DigitalOcean, Heroku: PgBouncer,
   * Supavisor), which keeps no prepared statement between transactions, nothing needs setting: the first statement
   * the pooler refuses (PostgreSQL's 42P05 or 26000, before anything ran) switches the pool to statements it keeps
   * (unnamed; the transactional claim's own text inlined behind `BEGIN`), for this store and every journal and inbox
   * on the same pool; the statement is sent again that way, so no delivery fails for it, and the switch is logged
   * once to `logger`.
   *
   * `true`: prepared statements from the start, with a `client` too (a `pg` Client), switching the same way.
   * `false`: never: every statement unnamed, `BEGIN` and the claim's text in one query (no refusal to meet). With
   * a `binding`, it says whether the transactional claim is given its statement's name, which a binding whose driver
   * keeps named statements (TypeORM on `pg`) uses to plan it once per connection.
   */
  preparedStatements?: boolean;
  /**
   * Where the store says that a pooler made it switch to unprepared statements (once per pool): console-style or
   * pino-style, default `console`. No connection details are logged.
   */
  logger?: AnyLogger;
  /**
   * Gather concurrent claims (and completions) into one statement each: a call goes out at once while fewer than
   * `maxInFlight` (default 2) of its kind are running, else with the next batch (at most `maxSize`, default 200).
   * Under load this serves many deliveries per round trip; a lone delivery waits for nothing. A batch still out
   * after `timeoutMs` (default 5,000) fails its calls and frees its place, so a statement stuck on a dead pooled
   * connection or a locked row does not hold every later delivery behind it. `false`: one statement per call.
   */
  batching?: BatchingOptions | false;
}

/** One call of a batched statement: the key, the delivery that owns it, and a lease or retention in ms. */
interface KeyedCall {
  readonly key: string;
  readonly owner: string;
  readonly ms: number;
}

/**
 * Idempotency store over the shop's own PostgreSQL database (`pg` or PGlite; no dependency is added). Claims,
 * completion and release are single atomic statements (`INSERT ... ON CONFLICT ... WHERE`), so only the delivery
 * holding an event's lease can finish it, and a lease that ran out can be taken over.
 *
 * It is also a {@link TransactionalIdempotencyStore}: with `idempotency: { transactional: true }` the receiver
 * records the event in the same transaction as the handlers' writes (`ctx.transaction` is the connection), so a
 * crash or a handler error rolls both back and the redelivery applies the event once; a concurrent duplicate is
 * answered 409 at once (a transaction-scoped advisory lock on the event's key says another transaction has it).
 *
 * Create the table with {@link PostgresIdempotencyStore.ensureSchema} or the shipped migration, and call
 * {@link PostgresIdempotencyStore.deleteExpired} now and then (e.g. daily) to drop records past their retention.
 *
 * @example
 * import pg from "pg";
 * const store = new PostgresIdempotencyStore({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) });
 * await store.ensureSchema();
 * createWebhookReceiver({ source: "qris", verify, idempotency: { store, transactional: true } });
 */
export class PostgresIdempotencyStore<Tx = PgQueryable> implements IdempotencyStore, TransactionalIdempotencyStore<Tx> {
  readonly #binding: SqlBinding<Tx> | undefined;
  readonly #pool: PgPoolLike | undefined;
  readonly #client: PgQueryable | undefined;
  readonly #table: string;
  readonly #schema: string[];
  readonly #prepared: boolean;
  readonly #sql: Record<PostgresStatementName, Statement>;
  readonly #transactionalClaim: TransactionalClaimStatement;
  readonly #boundClaims: BoundClaimTexts;
  /** The pool, client or binding whose statement mode the store follows (shared with journals and inboxes on it). */
  readonly #statements: StatementScope;
  readonly #claims: KeyedBatcher<KeyedCall, Record<string, unknown>>;
  readonly #completions: KeyedBatcher<KeyedCall, Record<string, unknown>>;
  /** Runs `idempotency: { transactional: true }` deliveries (the receiver takes it from the store). */
  readonly transactionalStage = transactionalStage;
  /** Its transactions are on PostgreSQL (the receiver checks its delivery journal against it). */
  readonly dialect = "postgres";

  constructor(options: PostgresIdempotencyStoreOptions<Tx>) {
    const { pool, client, binding } = options ?? {};
    if ([pool, client, binding].filter((given) => given !== undefined).length !== 1) {
      throw new TypeError(
        "PostgresIdempotencyStore: pass one of binding (your database library's), pool (a pg Pool) or client (one connection)",
      );
    }
    if (binding !== undefined && (typeof binding.transaction !== "function" || typeof binding.query !== "function")) {
      throw new TypeError("PostgresIdempotencyStore: binding must come from a kirimbayar binding (e.g. prismaBinding)");
    }
    if (binding !== undefined) assertBindingDialect("postgres", binding);
    this.#binding = binding;
    if (pool !== undefined && (typeof pool.query !== "function" || typeof pool.connect !== "function")) {
      throw new TypeError("PostgresIdempotencyStore: pool must be a pg Pool (query and connect)");
    }
    if (client !== undefined && typeof client.query !== "function") {
      throw new TypeError("PostgresIdempotencyStore: client must have query(text, values)");
    }
    this.#pool = pool;
    this.#client = client;
    this.#table = options.table ?? DEFAULT_POSTGRES_IDEMPOTENCY_TABLE;
    this.#schema = postgresIdempotencySchema(this.#table);
    // Prepared statements need `pg` itself: a binding runs plain text through its library.
    this.#prepared = binding === undefined && (options.preparedStatements ?? pool !== undefined);
    const { statements, transactionalClaimName } = postgresIdempotencyStatements(this.#table);
    this.#sql = statements;
    this.#statements = {
      scope: (binding ?? pool ?? client) as object,
      report: { component: "PostgresIdempotencyStore", logger: webhookLoggerOf(options.logger ?? console) },
    };
    this.#boundClaims = {
      newKey: this.#sql.claimNewInTransaction,
      any: this.#sql.claimInTransaction,
      named: binding !== undefined && options.preparedStatements !== false,
      statements: this.#statements,
    };
    this.#transactionalClaim = {
      statement: this.#sql.claimInTransaction,
      prepareName: transactionalClaimName,
      prepared: new WeakSet(),
    };
    const batching =
      options.batching === false ? { maxSize: 1, maxInFlight: Number.MAX_SAFE_INTEGER } : options.batching;
    // A claim batch that committed after its time limit failed the claims (answered 503): give those keys back at
    // once, or the provider's retries would be answered 409 until the lease ends.
    this.#claims = new KeyedBatcher(
      (calls) => this.#runBatch(this.#sql.claim, calls),
      batching,
      (call) => {
        this.release(call.key, call.owner, call.ms).catch(() => {});
      },
    );
    this.#completions = new KeyedBatcher((calls) => this.#runBatch(this.#sql.complete, calls), batching);
  }

  /** Creates the table and its index if they do not exist (the shipped migration does the same). */
  async ensureSchema(): Promise<void> {
    for (const text of this.#schema) await this.#query({ text }, []);
  }

  /** Deletes up to `limit` records past their retention (or lease); returns how many. Run it now and then. */
  async deleteExpired(limit = 10_000): Promise<number> {
    const result = await this.#query(this.#sql.sweep, [limit]);
    return result.rowCount ?? result.affectedRows ?? 0;
  }

  /** What the console shows of `key`'s record (state, attempts, lease or retention end); never the owner token. */
  async inspect(key: string): Promise<IdempotencyRecordView | undefined> {
    const t = quotedTable(this.#table);
    const text = `SELECT state, attempts, (extract(epoch FROM lease_expires_at) * 1000)::float8 AS lease_ms,
  (extract(epoch FROM expires_at) * 1000)::float8 AS expires_ms, expires_at <= now() AS expired FROM ${t} WHERE key = $1`;
    return recordViewOf(key, (await this.#query({ text }, [key])).rows[0]);
  }

  async claim(key: string, owner: string, leaseMs: number): Promise<ClaimResult> {
    const claimed = await this.#claims.submit({ key, owner, ms: leaseMs }).catch(batchFailed);
    if (claimed !== undefined) return { state: "claimed", attempt: Number(claimed.attempts) };
    // A duplicate: completed, or held by a live lease (also when the row is gone again by now).
    const current = (await this.#query(this.#sql.state, [key])).rows[0];
    return current?.state === "completed" ? { state: "completed" } : { state: "in_progress" };
  }

  async complete(key: string, owner: string, retentionMs: number): Promise<boolean> {
    return (await this.#completions.submit({ key, owner, ms: retentionMs }).catch(batchFailed)) !== undefined;
  }

  async release(key: string, owner: string, retentionMs: number): Promise<boolean> {
    return (await this.#query(this.#sql.release, [key, owner, retentionMs])).rows.length === 1;
  }

  /** Opens the transaction of one transactional delivery (see {@link TransactionalIdempotencyStore}). */
  async begin(): Promise<IdempotencyTransaction<Tx>> {
    if (this.#binding !== undefined) return this.#beginWithBinding(this.#binding);
    return (await this.#beginWithPg()) as unknown as IdempotencyTransaction<Tx>;
  }

  // The library opens the transaction and hands its own object to the handlers; the claim is one of its statements.
  async #beginWithBinding(binding: SqlBinding<Tx>): Promise<IdempotencyTransaction<Tx>> {
    let held: HeldTransaction<Tx>;
    try {
      held = await holdTransaction(binding);
    } catch (error) {
      throw unavailable("BEGIN", error);
    }
    return new BoundTransaction(binding, held, this.#boundClaims);
  }

  async #beginWithPg(): Promise<IdempotencyTransaction> {
    const client = this.#client as Partial<CallbackTransactions> | undefined;
    if (typeof client?.transaction === "function") return this.#beginWithCallback(client as CallbackTransactions);
    const { connection, done } = await this.#connection();
    // BEGIN goes out with the claim (see PostgresTransaction.claim). Only a pooled connection can be abandoned:
    // the pool discards it, while a single client is the app's own and stays open.
    const pooled = this.#pool !== undefined;
    return new PostgresTransaction(
      connection,
      done,
      this.#transactionalClaim,
      this.#prepared,
      this.#statements,
      pooled,
    );
  }

  // PGlite runs a transaction through `transaction(callback)`, which also makes the app's own statements on the same
  // database wait until it ends; a BEGIN sent through `query` would let them run inside the delivery's transaction.
  async #beginWithCallback(client: CallbackTransactions): Promise<IdempotencyTransaction> {
    const release = await this.#takeTurn();
    let opened!: (tx: PgQueryable & { rollback(): Promise<void> }) => void;
    const ready = new Promise<PgQueryable & { rollback(): Promise<void> }>((resolve) => {
      opened = resolve;
    });
    let finish!: (commit: boolean) => void;
    const finished = new Promise<boolean>((resolve) => {
      finish = resolve;
    });
    const running = client.transaction(async (tx) => {
      opened(tx);
      if (!(await finished)) await tx.rollback();
    });
    try {
      const tx = await Promise.race([
        ready,
        running.then(() => Promise.reject(new Error("transaction ended at once"))),
      ]);
      return new CallbackTransaction(tx, finish, running, release, this.#sql.claimInTransaction);
    } catch (error) {
      release();
      throw unavailable("BEGIN", error);
    }
  }

  // A connection for one transaction: lent by the pool, or the single client once its turn comes.
  async #connection(): Promise<{ connection: PgQueryable; done: (error?: unknown) => void }> {
    if (this.#pool !== undefined) {
      let lent: PgPoolClientLike;
      try {
        lent = await this.#pool.connect();
      } catch (error) {
        throw unavailable("connect", error);
      }
      // A backend that dies while lent (a database restart, a terminated connection) emits `error` on the client:
      // the failing statement already reports it, and without a listener it would crash the process.
      const events = lent as Partial<{
        on(event: "error", listener: () => void): void;
        off(event: "error", listener: () => void): void;
      }>;
      const ignore = () => {};
      events.on?.("error", ignore);
      return {
        connection: lent,
        done: (error) => {
          events.off?.("error", ignore);
          lent.release(error === undefined ? undefined : true);
        },
      };
    }
    const release = await this.#takeTurn();
    return { connection: this.#client as PgQueryable, done: () => release() };
  }

  // One batched statement; its rows by key.
  async #runBatch(statement: Statement, calls: KeyedCall[]): Promise<Map<string, Record<string, unknown>>> {
    const { rows } = await this.#query(statement, [JSON.stringify(calls)]);
    const byKey = new Map<string, Record<string, unknown>>();
    for (const row of rows) byKey.set(String(row.key), row);
    return byKey;
  }

  async #query(statement: Statement, values: unknown[]): Promise<QueryResult> {
    if (this.#binding !== undefined) {
      try {
        const { rows, affectedRows } = await this.#binding.query(statement.text, values);
        return { rows: rows as Record<string, unknown>[], rowCount: affectedRows ?? null };
      } catch (error) {
        throw unavailable("query", error);
      }
    }
    const release = this.#pool === undefined ? await this.#takeTurn() : undefined;
    const connection = (this.#pool ?? this.#client) as PgQueryable;
    try {
      if (!this.#prepared || statement.name === undefined) return await runOn(connection, statement, values, false);
      // Named, unless the pooler refused a named statement on this pool (then unnamed, this one sent again).
      const { scope, report } = this.#statements;
      return await sendNamedUnlessRefused(scope, (named) => runOn(connection, statement, values, named), report);
    } catch (error) {
      throw unavailable("query", error);
    } finally {
      release?.();
    }
  }

  // The single connection, once free of every other turn on it: this store's and every journal's or store's given
  // the same client (see connection-turn.ts). Call the returned function to free it again.
  #takeTurn(): Promise<() => void> {
    return takeConnectionTurn(this.#client as PgQueryable);
  }
}

// A batch fails with the database's error (already wrapped) or the batcher's own time limit.
function batchFailed(error: unknown): never {
  throw unavailable("batched statement", error);
}
