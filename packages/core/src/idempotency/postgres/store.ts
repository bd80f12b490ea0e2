import type { IdempotencyRecordView } from "../journal/types.js";
import { transactionalStage } from "../webhooks/pipeline/transactional.js";
import { type BatchingOptions, KeyedBatcher } from "./keyed-batcher.js";
import { recordViewOf } from "./record-view.js";
import type { SqlBinding, SqlResult } from "./sql/binding.js";
import { type HeldTransaction, holdTransaction } from "./sql/callback-transaction.js";
import { assertBindingDialect } from "./sql/dialect.js";
import {
  type ClaimResult,
  type IdempotencyStore,
  IdempotencyStoreUnavailableError,
  type IdempotencyTransaction,
  type TransactionalIdempotencyStore,
} from "./types.js";

/** What the store needs of a connection: `pg`'s `Pool`, `Client` and `PoolClient`, and PGlite, all have it. */
export interface PgQueryable {
  query(text: string, values?: unknown[]): PromiseLike<{ rows: Record<string, unknown>[] }>;
}

/** A `pg` `Pool` (or anything that lends a connection and takes it back). */
export interface PgPoolLike extends PgQueryable {
  connect(): PromiseLike<PgPoolClientLike>;
}

/** A connection lent by a {@link PgPoolLike}. */
export interface PgPoolClientLike extends PgQueryable {
  /** Gives the connection back; with an error, the pool discards it. */
  release(error?: Error | boolean): void;
}

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
   * delivery holds it until it commits. For tests, local development and single-process apps.
   */
  client?: PgQueryable;
  /** Table name, optionally schema-qualified (`shop.webhook_events`); default `kirimbayar_idempotency`. */
  table?: string;
  /**
   * Send the store's statements as named prepared statements, parsed and planned once per connection (default:
   * `true` with a `pool`, which must then be `pg`'s; `false` with a `client`, which may be PGlite). With it, a
   * transactional delivery opens its transaction and claims in one round trip (`BEGIN; EXECUTE …`, after one SQL
   * `PREPARE` per connection); set `false` behind a transaction-mode pooler (PgBouncer), which keeps no SQL
   * prepared statement between transactions: BEGIN and the claim then go as two statements. With a `binding`
   * (default `true`), the transactional claim is given its statement's name, which a binding whose driver keeps
   * named statements (TypeORM on `pg`) uses to plan it once per connection; `false` sends it unnamed.
   */
  preparedStatements?: boolean;
  /**
   * Gather concurrent claims (and completions) into one statement each: a call goes out at once while fewer than
   * `maxInFlight` (default 2) of its kind are running, else with the next batch (at most `maxSize`, default 200).
   * Under load this serves many deliveries per round trip; a lone delivery waits for nothing. A batch still out
   * after `timeoutMs` (default 5,000) fails its calls and frees its place, so a statement stuck on a dead pooled
   * connection or a locked row does not hold every later delivery behind it. `false`: one statement per call.
   */
  batching?: BatchingOptions | false;
}

/** Default table of {@link PostgresIdempotencyStore}. */
export const DEFAULT_POSTGRES_IDEMPOTENCY_TABLE = "kirimbayar_idempotency";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The double-quoted table name; throws for anything but one or two plain identifiers. */
function quotedTable(table: string): string {
  const parts = table.split(".");
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new TypeError(`PostgresIdempotencyStore: table must be "name" or "schema.name" of letters, digits and _`);
  }
  return parts.map((part) => `"${part}"`).join(".");
}

/**
 * The schema of the store's table, as statements (the same SQL as `sql/postgres-idempotency.sql` in this package,
 * for your migration tool). `state` is `processing` (a delivery holds the lease until `lease_expires_at`),
 * `completed` (kept until `expires_at`, the retention) or `released` (a failed attempt, remembered for the count).
 *
 * @example
 * for (const statement of postgresIdempotencySchema("shop.webhook_events")) await db.query(statement);
 */
export function postgresIdempotencySchema(table: string = DEFAULT_POSTGRES_IDEMPOTENCY_TABLE): string[] {
  const name = quotedTable(table);
  const index = `"${table.replace(".", "_")}_expires_at"`;
  return [
    `CREATE TABLE IF NOT EXISTS ${name} (
  key text PRIMARY KEY,
  state text NOT NULL CHECK (state IN ('processing', 'completed', 'released')),
  owner text,
  attempts integer NOT NULL DEFAULT 1,
  lease_expires_at timestamptz,
  expires_at timestamptz NOT NULL
)`,
    `CREATE INDEX IF NOT EXISTS ${index} ON ${name} (expires_at)`,
  ];
}

/** A statement, named when the connection is `pg`'s so that it is parsed and planned once per connection. */
interface Statement {
  readonly text: string;
  readonly name?: string;
}

/** One call of a batched statement: the key, the delivery that owns it, and a lease or retention in ms. */
interface KeyedCall {
  readonly key: string;
  readonly owner: string;
  readonly ms: number;
}

type QueryResult = { rows: Record<string, unknown>[]; rowCount?: number | null; affectedRows?: number };

/** Runs a statement on a connection: as a named prepared statement on `pg`, as text elsewhere (PGlite). */
function runOn(
  connection: PgQueryable,
  statement: Statement,
  values: unknown[],
  prepared: boolean,
): PromiseLike<QueryResult> {
  if (prepared && statement.name !== undefined) {
    const config = { name: statement.name, text: statement.text, values };
    return (connection.query as unknown as (config: object) => PromiseLike<QueryResult>)(config);
  }
  return connection.query(statement.text, values);
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
  readonly #sql: Record<
    "claim" | "state" | "complete" | "release" | "claimInTransaction" | "claimNewInTransaction" | "sweep",
    Statement
  >;
  readonly #transactionalClaim: TransactionalClaimStatement;
  readonly #boundClaims: BoundClaimTexts;
  readonly #claims: KeyedBatcher<KeyedCall, Record<string, unknown>>;
  readonly #completions: KeyedBatcher<KeyedCall, Record<string, unknown>>;
  // One connection serves one statement or transaction at a time.
  #turn: Promise<unknown> = Promise.resolve();
  /** Runs `idempotency: { transactional: true }` deliveries (the receiver takes it from the store). */
  readonly transactionalStage = transactionalStage;

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
    const t = quotedTable(this.#table);
    this.#schema = postgresIdempotencySchema(this.#table);
    // Prepared statements need `pg` itself: a binding runs plain text through its library.
    this.#prepared = binding === undefined && (options.preparedStatements ?? pool !== undefined);
    const ms = (parameter: string) => `(${parameter}::double precision * interval '1 millisecond')`;
    const texts = {
      // Claimed when the key is new, released, past its retention, or its lease ran out. Takes a batch of
      // {key, owner, ms} as JSON (every driver passes a string); rows are locked in key order, so two batches
      // never wait on each other in a cycle.
      claim: `INSERT INTO ${t} AS t (key, state, owner, attempts, lease_expires_at, expires_at)
SELECT i.key, 'processing', i.owner, 1, now() + ${ms("i.ms")}, now() + ${ms("i.ms")}
FROM json_to_recordset($1::json) AS i(key text, owner text, ms double precision) ORDER BY i.key
ON CONFLICT (key) DO UPDATE SET state = 'processing', owner = EXCLUDED.owner,
  attempts = CASE WHEN t.expires_at <= now() AND t.state = 'completed' THEN 1 ELSE t.attempts + 1 END,
  lease_expires_at = EXCLUDED.lease_expires_at, expires_at = EXCLUDED.expires_at
WHERE t.expires_at <= now() OR t.state = 'released' OR (t.state = 'processing' AND t.lease_expires_at <= now())
RETURNING t.key, t.attempts`,
      // Read only when the claim took nothing (a duplicate): why not.
      state: `SELECT state FROM ${t} WHERE key = $1`,
      // Recorded when this delivery holds the lease, or nobody does any more (expired, released, gone). A batch
      // like the claim's. (A record inserted here keeps the owner: an owner means nothing once completed.)
      complete: `INSERT INTO ${t} AS t (key, state, owner, attempts, expires_at)
SELECT i.key, 'completed', i.owner, 1, now() + ${ms("i.ms")}
FROM json_to_recordset($1::json) AS i(key text, owner text, ms double precision) ORDER BY i.key
ON CONFLICT (key) DO UPDATE SET state = 'completed', owner = NULL, lease_expires_at = NULL,
  expires_at = EXCLUDED.expires_at
WHERE t.owner = EXCLUDED.owner OR t.expires_at <= now() OR t.state = 'released'
  OR (t.state = 'processing' AND t.lease_expires_at <= now())
RETURNING t.key`,
      release: `UPDATE ${t} SET state = 'released', owner = NULL, lease_expires_at = NULL,
  expires_at = now() + ${ms("$3")}
WHERE key = $1 AND owner = $2 AND state = 'processing'
RETURNING 1 AS released`,
      // Inside the delivery's transaction: the record appears (and disappears) with the handlers' writes. The
      // advisory lock (held until the transaction ends) tells a concurrent duplicate at once that another open
      // transaction has the event, instead of letting it wait on the row lock for the whole handler.
      claimInTransaction: `WITH lock AS MATERIALIZED (SELECT pg_try_advisory_xact_lock(hashtextextended($1, 7411)) AS got),
claimed AS (
  INSERT INTO ${t} AS t (key, state, attempts, expires_at)
  SELECT $1, 'completed', 1, now() + ${ms("$2")} FROM lock WHERE lock.got
  ON CONFLICT (key) DO UPDATE SET state = 'completed', owner = NULL, lease_expires_at = NULL,
    attempts = t.attempts + 1, expires_at = EXCLUDED.expires_at
  WHERE t.state <> 'completed' OR t.expires_at <= now()
  RETURNING attempts
)
SELECT (SELECT got FROM lock) AS got, (SELECT attempts FROM claimed) AS attempts`,
      // A transaction opened by a library's binding sends its statements unnamed, so PostgreSQL plans each one on
      // every delivery: this flat insert of a new key costs less to plan and run than the claim above (backend CPU
      // of a delivery's whole transaction 0.32-0.34 against 0.42-0.45 ms unnamed, 0.21-0.25 named; a hand-rolled
      // `INSERT ... ON CONFLICT DO NOTHING` 0.18). No row back (a duplicate, a retry, the lock held elsewhere) and
      // the claim above decides; the advisory lock is re-entrant within a transaction.
      claimNewInTransaction: `INSERT INTO ${t} (key, state, attempts, expires_at)
SELECT $1, 'completed', 1, now() + ${ms("$2")} WHERE pg_try_advisory_xact_lock(hashtextextended($1, 7411))
ON CONFLICT (key) DO NOTHING
RETURNING attempts`,
      sweep: `DELETE FROM ${t} WHERE key IN (SELECT key FROM ${t} WHERE expires_at <= now() LIMIT $1)`,
    };
    // Names are per table (two stores on one pool never share a name for different text) and short: PostgreSQL
    // cuts names at 63 bytes, so a long table name would make two statements collide. A hash of the table keeps
    // them apart.
    const tableTag = fnv1a(this.#table);
    const named = (name: keyof typeof texts): Statement => ({
      text: texts[name],
      name: `kirimbayar_${name}_${tableTag}`,
    });
    this.#sql = {
      claim: named("claim"),
      state: named("state"),
      complete: named("complete"),
      release: named("release"),
      claimInTransaction: named("claimInTransaction"),
      claimNewInTransaction: named("claimNewInTransaction"),
      sweep: named("sweep"),
    };
    this.#boundClaims = {
      newKey: this.#sql.claimNewInTransaction,
      any: this.#sql.claimInTransaction,
      named: binding !== undefined && options.preparedStatements !== false,
    };
    this.#transactionalClaim = {
      name: `kirimbayar_txclaim_${tableTag}`,
      text: texts.claimInTransaction,
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
    const query = (statement: Statement, values: unknown[]) => runOn(connection, statement, values, this.#prepared);
    // BEGIN goes out with the claim (see PostgresTransaction.claim). Only a pooled connection can be abandoned:
    // the pool discards it, while a single client is the app's own and stays open.
    const pooled = this.#pool !== undefined;
    return new PostgresTransaction(connection, done, this.#transactionalClaim, this.#prepared, query, pooled);
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
    try {
      return await runOn((this.#pool ?? this.#client) as PgQueryable, statement, values, this.#prepared);
    } catch (error) {
      throw unavailable("query", error);
    } finally {
      release?.();
    }
  }

  // Resolves when the single connection is free; call the returned function to free it again.
  async #takeTurn(): Promise<() => void> {
    let free!: () => void;
    const mine = new Promise<void>((resolve) => {
      free = resolve;
    });
    const previous = this.#turn;
    this.#turn = previous.then(() => mine);
    await previous;
    return free;
  }
}

/**
 * The claim of a transactional delivery as an SQL-level prepared statement, so that `BEGIN` and the claim travel as
 * one simple-protocol query (`BEGIN; EXECUTE …`): the simple protocol takes no parameters, and a prepared statement
 * keeps the claim parsed and planned once per connection rather than on every delivery.
 */
interface TransactionalClaimStatement {
  readonly name: string;
  readonly text: string;
  /** The connections it is prepared on (a connection the pool replaced is a new object). */
  readonly prepared: WeakSet<object>;
}

/**
 * One delivery's transaction on one connection. It opens with its claim: `BEGIN; EXECUTE claim(…)` in one round
 * trip (the values inlined as quoted literals), so a delivery costs two round trips of its own, open-and-claim and
 * COMMIT (plus one `PREPARE` the first time a connection serves a transactional delivery).
 */
class PostgresTransaction implements IdempotencyTransaction {
  #open = false;
  #ended = false;
  #abandoned = false;
  /** Present on a pooled connection only (see {@link IdempotencyTransaction.abandon}). */
  readonly abandon?: () => void;

  constructor(
    readonly handle: PgQueryable,
    private readonly done: (error?: unknown) => void,
    private readonly claimStatement: TransactionalClaimStatement,
    /** `false` (`preparedStatements: false`): BEGIN and the claim go as two statements, the claim unnamed. */
    private readonly usePrepared: boolean,
    private readonly query: (statement: Statement, values: unknown[]) => PromiseLike<QueryResult>,
    pooled: boolean,
  ) {
    if (pooled) this.abandon = () => this.#abandon();
  }

  // The pool closes a connection given back with an error (a statement in flight fails at once), and the database
  // rolls back the transaction of a closed connection.
  #abandon(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#abandoned = true;
    this.done(new Error("abandoned: the webhook handlers ran out of time"));
  }

  async claim(key: string, retentionMs: number): Promise<ClaimResult> {
    if (!this.usePrepared) return this.#claimUnprepared(key, retentionMs);
    const { name, text, prepared } = this.claimStatement;
    let row: Record<string, unknown> | undefined;
    try {
      const execute = `EXECUTE ${name}(${quoteLiteral(key)}, ${quoteNumber(retentionMs)})`;
      if (!prepared.has(this.handle)) {
        await this.query({ text: `PREPARE ${name}(text, double precision) AS ${text}` }, []);
        prepared.add(this.handle);
      }
      this.#assertNotEnded();
      const opening = !this.#open;
      this.#open = true;
      const result = await this.query({ text: opening ? `BEGIN; ${execute}` : execute }, []);
      // A multi-statement query answers with one result per statement: the claim's is the last.
      const results = result as QueryResult | QueryResult[];
      row = (Array.isArray(results) ? results[results.length - 1] : results)?.rows[0];
    } catch (error) {
      throw unavailable("claim", error);
    }
    return transactionalClaimOf(row);
  }

  async #claimUnprepared(key: string, retentionMs: number): Promise<ClaimResult> {
    const { text } = this.claimStatement;
    let row: Record<string, unknown> | undefined;
    try {
      if (!this.#open) {
        this.#assertNotEnded();
        this.#open = true;
        await this.query({ text: "BEGIN" }, []);
      }
      this.#assertNotEnded();
      row = (await this.query({ text }, [key, retentionMs])).rows[0];
    } catch (error) {
      throw unavailable("claim", error);
    }
    return transactionalClaimOf(row);
  }

  // The transaction was ended while a statement before the claim was in flight (its time limit ran out and the
  // connection went back to the pool): opening it now would open it on a connection that may serve another delivery.
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
    if (!this.#open) return this.done();
    try {
      await this.query({ text: statement }, []);
      this.done();
    } catch (error) {
      // The connection is in an unknown state: the pool discards it, which also ends the transaction.
      this.done(error);
      throw unavailable(statement, error);
    }
  }
}

/**
 * A string as a PostgreSQL literal: quotes doubled, and backslashes doubled under `E''` so the literal means the
 * same whatever `standard_conforming_strings` says (as `pg`'s `escapeLiteral`).
 */
function quoteLiteral(value: string): string {
  const quoted = `'${value.replaceAll("'", "''")}'`;
  return value.includes("\\") ? ` E${quoted.replaceAll("\\", "\\\\")}` : quoted;
}

function quoteNumber(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError("PostgresIdempotencyStore: retention must be a finite number");
  return String(value);
}

/** A single connection that runs transactions through a callback (PGlite). */
interface CallbackTransactions {
  transaction<T>(callback: (tx: PgQueryable & { rollback(): Promise<void> }) => Promise<T>): Promise<T>;
}

/**
 * One delivery's transaction inside a PGlite `transaction(callback)`: commit or rollback ends the callback. PGlite
 * refuses every statement on a transaction once it has ended, so abandoning one (handlers out of time) is a rollback
 * that does not wait for them: their later writes fail, and the one connection is free for the next delivery.
 */
class CallbackTransaction implements IdempotencyTransaction {
  #ended = false;
  #abandoned = false;

  constructor(
    readonly handle: PgQueryable,
    private readonly finish: (commit: boolean) => void,
    private readonly running: Promise<unknown>,
    private readonly release: () => void,
    private readonly claimSql: Statement,
  ) {}

  async claim(key: string, retentionMs: number): Promise<ClaimResult> {
    let row: Record<string, unknown> | undefined;
    try {
      row = (await this.handle.query(this.claimSql.text, [key, retentionMs])).rows[0];
    } catch (error) {
      throw unavailable("claim", error);
    }
    return transactionalClaimOf(row);
  }

  commit(): Promise<void> {
    if (this.#abandoned) return Promise.reject(unavailable("COMMIT", new Error("the transaction was abandoned")));
    return this.#end(true);
  }

  rollback(): Promise<void> {
    return this.#end(false);
  }

  abandon(): void {
    if (this.#ended) return;
    this.#abandoned = true;
    this.#end(false).catch(() => {});
  }

  async #end(commit: boolean): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    this.finish(commit);
    try {
      await this.running;
    } catch (error) {
      throw unavailable(commit ? "COMMIT" : "ROLLBACK", error);
    } finally {
      this.release();
    }
  }
}

/** The claim of a transaction opened through a binding: a new key's cheap insert first, else the whole claim. */
interface BoundClaimTexts {
  /** Inserts a new key under its advisory lock; answers `attempts` only when it did. */
  readonly newKey: Statement;
  /** Decides every case (see the store's `claimInTransaction`). */
  readonly any: Statement;
  /** Whether the binding is given the statements' names (see `SqlBinding.query`; `preparedStatements`). */
  readonly named: boolean;
}

/**
 * One delivery's transaction opened by the app's own library through its binding: the claim runs as a statement of
 * it, and the handlers get the library's transaction object. Abandoning it (handlers out of time) lets the binding
 * make the transaction's later statements fail (closing its connection where the library would run them), then
 * rolls it back without waiting for the handlers.
 */
class BoundTransaction<Tx> implements IdempotencyTransaction<Tx> {
  #ended = false;
  #abandoned = false;

  constructor(
    private readonly binding: SqlBinding<Tx>,
    private readonly held: HeldTransaction<Tx>,
    private readonly claims: BoundClaimTexts,
  ) {}

  get handle(): Tx {
    return this.held.tx;
  }

  async claim(key: string, retentionMs: number): Promise<ClaimResult> {
    let row: Record<string, unknown> | undefined;
    try {
      const inserted = await this.#run(this.claims.newKey, key, retentionMs);
      // A new key (the common case): one statement. A library that answers an insert's count but not its rows
      // still says so through the count.
      if (inserted.rows.length === 1 || inserted.affectedRows === 1) return { state: "claimed", attempt: 1 };
      // The whole claim would take a row this insert wrote but did not report for a duplicate's (answered 200, the
      // event never applied): without a count saying nothing was written, the delivery fails (503) instead.
      if (inserted.affectedRows !== 0) {
        throw new Error(`${this.binding.library} answered neither the claim's row nor its count of written rows`);
      }
      row = (await this.#run(this.claims.any, key, retentionMs)).rows[0];
    } catch (error) {
      throw unavailable("claim", error);
    }
    return transactionalClaimOf(row);
  }

  #run(statement: Statement, key: string, retentionMs: number): PromiseLike<SqlResult> {
    const name = this.claims.named ? statement.name : undefined;
    return this.binding.query(statement.text, [key, retentionMs], this.held.tx, name);
  }

  commit(): Promise<void> {
    if (this.#abandoned) return Promise.reject(unavailable("COMMIT", new Error("the transaction was abandoned")));
    return this.#end(true);
  }

  rollback(): Promise<void> {
    return this.#end(false);
  }

  abandon(): void {
    if (this.#ended) return;
    this.#abandoned = true;
    try {
      this.binding.abandon(this.held.tx);
    } finally {
      this.#end(false).catch(() => {});
    }
  }

  async #end(commit: boolean): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    try {
      await this.held.end(commit);
    } catch (error) {
      throw unavailable(commit ? "COMMIT" : "ROLLBACK", error);
    }
  }
}

/** What the transactional claim statement's row says. */
function transactionalClaimOf(row: Record<string, unknown> | undefined): ClaimResult {
  // Another open transaction holds the event (its advisory lock): the duplicate is answered at once (409).
  // Drivers answer a boolean as `true`, or as 1 / "t" where they pass PostgreSQL's text through.
  const got = row?.got;
  if (got !== true && got !== 1 && got !== "t") return { state: "in_progress" };
  return row?.attempts === null || row?.attempts === undefined
    ? { state: "completed" }
    : { state: "claimed", attempt: Number(row?.attempts) };
}

/** FNV-1a of a string, as 8 hex digits: a short, stable tag. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

// A batch fails with the database's error (already wrapped) or the batcher's own time limit.
function batchFailed(error: unknown): never {
  throw unavailable("batched statement", error);
}

function unavailable(operation: string, error: unknown): IdempotencyStoreUnavailableError {
  if (error instanceof IdempotencyStoreUnavailableError) return error;
  return new IdempotencyStoreUnavailableError(`PostgreSQL ${operation} failed`, { cause: error });
}
