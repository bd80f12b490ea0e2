import { KirimbayarError } from "../errors/base.js";
import type { IdempotencyRecordView } from "../journal/types.js";
import type { SqlResult } from "./sql/binding.js";

/** The SQL databases a transactional store's transactions can be on. */
export type TransactionDialect = "postgres" | "mysql";

/**
 * Runs statements as part of one open delivery transaction, on the store's own connection (through its binding's
 * transaction object, or the driver connection holding the transaction). The SQL delivery journals write a
 * transactional delivery's entry with it, so the entry commits or rolls back with the effect whatever connection the
 * journal itself was given.
 *
 * @example
 * await transaction.sql?.query("INSERT INTO audit (key) VALUES ($1)", [key]);
 */
export interface TransactionSql {
  /** The database of the transaction: statements use its native placeholders (`$1` on PostgreSQL, `?` on MySQL). */
  readonly dialect: TransactionDialect;
  /**
   * Runs one statement in the transaction; rejects once the transaction has ended. `statementName` is a name unique
   * to the statement's text, which the store may use to keep it prepared on its connection (as `SqlBinding.query`).
   */
  query(sql: string, params: readonly unknown[], statementName?: string): PromiseLike<SqlResult>;
}

/** A value or a promise of it: the memory store answers synchronously, Redis asynchronously. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * What a store or a verifier may answer: a value, or any thenable of it (a native promise of any realm, a
 * driver's own promise type, a lazy query builder). The receiver adopts it exactly as `await` would.
 */
export type MaybeThenable<T> = T | PromiseLike<T>;

/**
 * Result of {@link IdempotencyStore.claim}.
 * - `claimed`: this delivery owns the key until the lease ends; `attempt` (1-based) counts earlier released
 *   attempts where the store tracks them.
 * - `in_progress`: another delivery holds a live lease (answered 409 so the provider retries later).
 * - `completed`: the event was processed before (answered 200 without running the handler).
 */
export type ClaimResult =
  | { readonly state: "claimed"; readonly attempt?: number }
  | { readonly state: "in_progress" }
  | { readonly state: "completed" };

/**
 * The atomic storage behind exactly-once webhook processing. The receiver drives it as a state machine:
 * `claim` (set-if-absent with a lease) → run the handler → `complete` (kept for the retention time), or
 * `release` when the handler failed so the provider's retry can claim it again. An expired lease can be claimed
 * again. `owner` is a random token per delivery so that only the claimant can complete or release.
 *
 * Implement it over any store with an atomic set-if-absent; throw (or reject) when the store is unreachable, and
 * the receiver answers 503 without running the handler.
 *
 * @example
 * const store: IdempotencyStore = new MemoryIdempotencyStore({ maxEntries: 50_000 });
 */
export interface IdempotencyStore {
  claim(key: string, owner: string, leaseMs: number): MaybeThenable<ClaimResult>;
  /** Marks the key completed if `owner` still holds it (or nobody does); returns whether it did. */
  complete(key: string, owner: string, retentionMs: number): MaybeThenable<boolean>;
  /** Deletes `owner`'s claim so a retry can run, counting the failed attempt; returns whether it did. */
  release(key: string, owner: string, retentionMs: number): MaybeThenable<boolean>;
  /**
   * What the webhook console shows of `key`'s record: its state, attempt and deadlines, never the owner token or
   * the raw row; `undefined` when the store holds none (or it expired). Optional: the console shows no record for a
   * store without it.
   */
  inspect?(key: string): MaybePromise<IdempotencyRecordView | undefined>;
}

/**
 * One database transaction in which a delivery is claimed, handled and recorded: the store's half of transactional
 * handlers. `claim` records the key as completed *inside* the transaction, so the record becomes visible exactly
 * when the handlers' own writes do (on `commit`), and vanishes with them on `rollback` or a crash.
 */
export interface IdempotencyTransaction<Tx = unknown> {
  /**
   * What handlers get as `ctx.transaction`: your database library's transaction object when the store runs through
   * a binding (Prisma's `tx`, TypeORM's `EntityManager`, ...), else the `pg` client holding the transaction.
   */
  readonly handle: Tx;
  /**
   * `claimed`: this transaction now holds the key; `completed`: a committed delivery processed it (within the
   * retention); `in_progress`: another open transaction holds it (the store gives up quickly: a lock timeout).
   */
  claim(key: string, retentionMs: number): MaybeThenable<ClaimResult>;
  commit(): MaybeThenable<void>;
  rollback(): MaybeThenable<void>;
  /**
   * Runs other statements in this transaction, on its own connection (the SQL stores set it): the delivery journal
   * writes the entry through it. Optional: a store without it takes no journal entry in its transactions.
   */
  readonly sql?: TransactionSql;
  /**
   * Ends the transaction at once, even while a statement of the handlers is in flight (they ran out of time), in a
   * way that nothing they send later can commit: for a pooled SQL connection, close and discard the connection (the
   * database rolls the transaction back). Optional: without it, the receiver lets the handlers end and then commits
   * or rolls back as usual.
   */
  abandon?(): void;
}

/**
 * A store that can open a transaction shared with the handlers (`idempotency: { transactional: true }`), such as
 * a store over the app's own SQL database.
 *
 * @example
 * createWebhookReceiver({ source: "qris", verify, idempotency: { store: postgresStore, transactional: true } });
 */
export interface TransactionalIdempotencyStore<Tx = unknown> {
  begin(): MaybeThenable<IdempotencyTransaction<Tx>>;
  /**
   * The database its transactions are on, when they run SQL (`"postgres"`, `"mysql"`): a receiver checks, when it is
   * built, that its delivery journal writes that database's statements (its entry goes in through
   * {@link IdempotencyTransaction.sql}). Set by the PostgreSQL and MySQL stores.
   */
  readonly dialect?: TransactionDialect;
  /**
   * The receiver's transactional stage, brought by the store so that an app on another store never bundles it.
   * A store of your own sets it to `transactionalStage` of `@kirimbayar/core`.
   */
  readonly transactionalStage: TransactionalStage;
}

/**
 * The receiver's stage that runs a delivery in a store transaction (claim, handlers, completion, commit), opaque to
 * the store that carries it ({@link TransactionalIdempotencyStore.transactionalStage}).
 */
export interface TransactionalStage {
  readonly kind: "kirimbayar.transactional-stage";
}

/**
 * Thrown by the stores when the backing service does not answer (timeout, connection refused); the receiver
 * answers such failures with 503.
 *
 * @example
 * try { await store.claim(key, owner, 60_000) } catch (e) { if (e instanceof IdempotencyStoreUnavailableError) retryLater() }
 */
export class IdempotencyStoreUnavailableError extends KirimbayarError {
  constructor(message: string, options: { cause?: unknown; code?: string } = {}) {
    super(message, { code: options.code ?? "idempotency_store_unavailable", cause: options.cause });
  }
}

// How the receiver learns that a completion failed this way without importing the class: the error carries the line
// the receiver logs when it releases the claim and answers 503 instead of 200 (webhooks/pipeline/direct.ts), so a
// receiver whose store never throws it bundles neither the class nor the line.
const UNCONFIRMED_COMPLETION = Symbol();

/**
 * Thrown by a store's `complete` when it wrote the completion but cannot vouch that it survives a failover (the
 * Redis store with `replicaAcknowledgement`: fewer replicas acknowledged it in time than asked). The receiver then
 * does not answer 200: it releases the claim and answers 503, so the provider's retry finds the event completed
 * once the record is safe, or runs it again if the record was lost, and never runs it again after a 200.
 *
 * @example
 * receiver.onError((error) => { if (error.cause instanceof IdempotencyRecordNotDurableError) alertOps() });
 */
export class IdempotencyRecordNotDurableError extends IdempotencyStoreUnavailableError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: "idempotency_record_not_durable", cause: options.cause });
    // Not enumerable: no log, spread or JSON of the error shows it.
    Object.defineProperty(this, UNCONFIRMED_COMPLETION, {
      value: "A processed webhook's completion is not durable; released its claim and answered 503",
    });
  }
}

/**
 * For a completion that failed with an {@link IdempotencyRecordNotDurableError} (the record was written but may not
 * survive a failover), what the receiver logs as it releases the claim and answers 503; `undefined` for any other
 * failure, which is retried.
 */
export function unconfirmedCompletion(error: unknown): string | undefined {
  return (error as { [UNCONFIRMED_COMPLETION]?: string } | null | undefined)?.[UNCONFIRMED_COMPLETION];
}
