// What a process holds in its idempotency stores (claims of running deliveries, open delivery transactions), kept
// by wrapping the store the receivers get, so that shutdown can wait for them and then let go of the rest. The
// receiver itself carries no shutdown code: an app that does not shut down gracefully bundles none of this.
// Imported through the webhooks entry, never from its modules one by one: the bundler would otherwise split those
// modules into chunks of their own, and every app that imports only `@kirimbayar/core/webhooks` pays for the seams.
import {
  type ClaimResult,
  type IdempotencyStore,
  IdempotencyStoreUnavailableError,
  type IdempotencyTransaction,
  type TransactionalIdempotencyStore,
} from "../../webhooks.js";

/**
 * What a tracked store answers a claim (or a transaction) with once shutdown has begun: the receiver answers the
 * delivery 503 and runs nothing, so the provider (or the load balancer, or another inbox worker) takes it to an
 * instance that stays. Its `cause` chain is what `onError` sees (stage `idempotency`).
 *
 * @example
 * receiver.onError((error) => {
 *   if ((error as Error).cause instanceof ShutdownInProgressError) return; // a deploy, not an outage
 * });
 */
export class ShutdownInProgressError extends IdempotencyStoreUnavailableError {
  constructor() {
    super("This process is shutting down and takes no new deliveries; the provider's retry goes to another instance");
  }
}

/** What letting go of the held claims and transactions did. */
export interface ReleasedClaims {
  /** Claims of deliveries still running, deleted from the store (non-transactional handlers). */
  readonly released: number;
  /** Open delivery transactions ended without their commit (abandoned, or refused their commit). */
  readonly rolledBack: number;
  /** Claims the store could not release in time: their lease ends them. */
  readonly failed: number;
}

interface HeldClaim {
  readonly store: IdempotencyStore;
  readonly key: string;
  readonly retentionMs: number;
}

/**
 * The claims and transactions a process holds through its tracked stores. `track` wraps a store; `close` makes the
 * wrapped stores refuse new claims; `idle` waits until nothing is held; `releaseAll` lets go of what still is.
 */
export class ClaimTracker {
  #closing = false;
  /** Set once {@link releaseAll} ran: a claim or transaction the store grants later is given up at once. */
  #released = false;
  /** Claims of running deliveries, by owner token (unique per delivery). */
  readonly #claims = new Map<string, HeldClaim>();
  readonly #transactions = new Set<TrackedTransaction>();
  #whenIdle: (() => void) | undefined;
  #refused = 0;

  /** Claims and transactions held now. */
  get held(): number {
    return this.#claims.size + this.#transactions.size;
  }

  /** Claims and transactions refused since {@link close}. */
  get refused(): number {
    return this.#refused;
  }

  /** Whether the tracked stores refuse new claims. */
  get closing(): boolean {
    return this.#closing;
  }

  /** From now on, the tracked stores refuse every new claim and transaction with {@link ShutdownInProgressError}. */
  close(): void {
    this.#closing = true;
  }

  /** Resolves once nothing is held (at once when nothing is). */
  idle(): Promise<void> {
    if (this.held === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const previous = this.#whenIdle;
      this.#whenIdle = () => {
        previous?.();
        resolve();
      };
    });
  }

  /**
   * Lets go of everything still held: each claim is released (compare-and-delete on its owner, counted as a failed
   * attempt, so the retry runs at once elsewhere), each open transaction is abandoned where its store can (its
   * connection closed, so nothing its handlers send later commits) and refused its commit everywhere. Every store
   * call is bounded by `timeoutMs`.
   */
  async releaseAll(timeoutMs: number): Promise<ReleasedClaims> {
    this.#released = true;
    const claims = [...this.#claims];
    this.#claims.clear();
    const transactions = [...this.#transactions];
    this.#transactions.clear();
    for (const transaction of transactions) transaction.cut();
    const results = await Promise.all(
      claims.map(([owner, { store, key, retentionMs }]) =>
        withinTime(() => store.release(key, owner, retentionMs), timeoutMs).then(
          (released) => released !== undefined,
          () => false,
        ),
      ),
    );
    this.#checkIdle();
    const released = results.filter(Boolean).length;
    return { released, rolledBack: transactions.length, failed: results.length - released };
  }

  /**
   * `store`, its claims and transactions tracked: the same object to every caller (private fields, `instanceof`,
   * other methods keep working), except that `claim`, `complete`, `release` and `begin` go through the tracker.
   * `retentionMs` is what a release at shutdown keeps the attempt count for.
   */
  track<S extends IdempotencyStore>(store: S, retentionMs: number): S {
    const tracker = this;
    const transactional = store as unknown as Partial<TransactionalIdempotencyStore>;
    const overrides: Partial<Record<PropertyKey, unknown>> = {
      claim(key: string, owner: string, leaseMs: number) {
        if (tracker.#closing) return tracker.#refuse();
        return then(store.claim(key, owner, leaseMs), (result: ClaimResult) => {
          if ((result as Partial<ClaimResult> | undefined)?.state !== "claimed") return result;
          // Sent before shutdown began, granted after everything was let go: given up, and the delivery refused.
          if (tracker.#released) {
            Promise.resolve()
              .then(() => store.release(key, owner, retentionMs))
              .catch(() => {});
            return tracker.#refuse();
          }
          tracker.#claims.set(owner, { store, key, retentionMs });
          return result;
        });
      },
      // The handlers finished: recording their completion is the delivery's business now, never to be undone by a
      // release (that would run them twice). A failed completion is retried by the receiver, untracked.
      complete(key: string, owner: string, retention: number) {
        tracker.#drop(owner);
        return store.complete(key, owner, retention);
      },
      release(key: string, owner: string, retention: number) {
        tracker.#drop(owner);
        return store.release(key, owner, retention);
      },
    };
    if (typeof transactional.begin === "function") {
      const begin = transactional.begin.bind(store);
      overrides.begin = () => {
        if (tracker.#closing) return tracker.#refuse();
        return then(begin(), (opened: IdempotencyTransaction) => {
          if (!tracker.#released) return tracker.#hold(opened);
          Promise.resolve()
            .then(() => opened.rollback())
            .catch(() => {});
          return tracker.#refuse();
        });
      };
    }
    return new Proxy(store, {
      get(target, property) {
        if (Object.hasOwn(overrides, property)) return overrides[property];
        // The store's own `this` (its private fields, getters), never the proxy's.
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }

  #refuse(): never {
    this.#refused += 1;
    throw new ShutdownInProgressError();
  }

  #hold(opened: IdempotencyTransaction): IdempotencyTransaction {
    const transaction = new TrackedTransaction(opened, (ended) => {
      this.#transactions.delete(ended);
      this.#checkIdle();
    });
    this.#transactions.add(transaction);
    return transaction.view;
  }

  #drop(owner: string): void {
    if (this.#claims.delete(owner)) this.#checkIdle();
  }

  #checkIdle(): void {
    if (this.held > 0 || this.#whenIdle === undefined) return;
    const resolve = this.#whenIdle;
    this.#whenIdle = undefined;
    resolve();
  }
}

/**
 * An open delivery transaction as the receiver sees it through a tracked store. It is held from `begin` until the
 * receiver commits, rolls back or abandons it; once cut at shutdown, its commit is refused, so the effect and the
 * record can only vanish together.
 */
class TrackedTransaction {
  readonly view: IdempotencyTransaction;
  #cut = false;

  constructor(
    private readonly opened: IdempotencyTransaction,
    private readonly ended: (transaction: TrackedTransaction) => void,
  ) {
    const end = () => this.ended(this);
    const view: IdempotencyTransaction = {
      get handle() {
        return opened.handle;
      },
      claim: (key, retentionMs) => opened.claim(key, retentionMs),
      commit: () => {
        end();
        if (this.#cut) {
          return Promise.reject(
            new IdempotencyStoreUnavailableError("The delivery's transaction was ended at shutdown; it did not commit"),
          );
        }
        return opened.commit();
      },
      rollback: () => {
        end();
        return opened.rollback();
      },
    };
    // The journal writes a transactional delivery's entry through it: without it, every entry would fail in the
    // transaction and the delivery run again. Read when used (the stores build it lazily).
    if ("sql" in opened) Object.defineProperty(view, "sql", { get: () => opened.sql, enumerable: true });
    // Only where the store has one: the receiver tells the two kinds of store apart by it.
    if (typeof opened.abandon === "function") {
      const abandon = opened.abandon.bind(opened);
      (view as { abandon?: () => void }).abandon = () => {
        end();
        abandon();
      };
    }
    this.view = view;
  }

  /**
   * Shutdown: the commit is refused from now on, and a store that can abandon the transaction does (its connection
   * closed, the database rolls it back). Elsewhere the transaction ends when its handlers do, or when the process
   * exits and the database sees its connection close; either way without its commit.
   */
  cut(): void {
    this.#cut = true;
    try {
      this.opened.abandon?.();
    } catch {
      // Abandoning closes a connection; a failure leaves the transaction to end with the process.
    }
  }
}

// `value` passed to `next` as it is, or once settled when it is a thenable (adopted as `await` would, lazy ones
// included): a store answering synchronously (the memory store) stays synchronous.
function then<T, U>(value: T | PromiseLike<T>, next: (settled: T) => U): U | Promise<U> {
  const thenable =
    value !== null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function";
  return thenable ? Promise.resolve(value).then(next) : next(value as T);
}

// Resolves with the store's answer, or with `undefined` past `timeoutMs`; rejects when the store throws.
function withinTime<T>(operation: () => T | PromiseLike<T>, timeoutMs: number): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    const timer = setTimeout(() => resolve(undefined), timeoutMs);
    let pending: Promise<T>;
    try {
      pending = Promise.resolve(operation());
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
