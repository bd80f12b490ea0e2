import { Deadlines } from "./deadlines.js";
import { frozenEntry } from "./entry.js";
import { MemoryRateStore } from "./memory-store.js";
import type { RateEntry, RateStore } from "./types.js";

type Entries = readonly (RateEntry | undefined)[];

const isThenable = <T>(value: unknown): value is PromiseLike<T> =>
  typeof (value as { then?: unknown } | null)?.then === "function";

/**
 * The quoter's view of its store, route by route. A memory store is used as it is. Any other store (Redis, your own) is shared or
 * remote, so beside it the quoter keeps a local memory copy of every answer it reads or writes, and when the store
 * fails or does not answer within `timeoutMs` (give or take half of it) it answers from that copy and the provider instead, and leaves the store
 * alone for `retryMs` (so an outage costs one time-out per `retryMs`, not one per quote). Reads go to the shared
 * store first, so an invalidation made by another instance is seen at once while the store works.
 */
export class RateCache {
  readonly #store: RateStore;
  readonly #local: MemoryRateStore | undefined;
  readonly #deadlines: Deadlines;
  readonly #retryMs: number;
  #downUntil = 0;

  constructor(store: RateStore, options: { localMax: number; timeoutMs: number; retryMs: number }) {
    this.#store = store;
    this.#local = store instanceof MemoryRateStore ? undefined : new MemoryRateStore({ max: options.localMax });
    this.#deadlines = new Deadlines(options.timeoutMs);
    this.#retryMs = options.retryMs;
  }

  /** Whether the store can coalesce identical questions across instances. */
  get shared(): boolean {
    return typeof this.#store.lock === "function";
  }

  /** Whether the shared store is being skipped after a failure (answers come from the local copy). */
  get degraded(): boolean {
    return this.#local !== undefined && Date.now() < this.#downUntil;
  }

  /** The answers of `couriers` on route `key`: synchronously from a memory store, else a promise that never rejects. */
  read(key: string, couriers: readonly string[]): Entries | Promise<Entries> {
    const local = this.#local;
    if (local === undefined) return this.#store.get(key, couriers) as Entries;
    if (this.degraded) return local.get(key, couriers);
    let answer: Entries | PromiseLike<Entries>;
    try {
      answer = this.#store.get(key, couriers);
    } catch {
      this.#trip();
      return local.get(key, couriers);
    }
    if (!isThenable<Entries>(answer)) return this.#keepLocally(key, couriers, answer);
    return this.#deadlines.race(answer).then(
      (entries) => this.#keepLocally(key, couriers, entries),
      () => {
        this.#trip();
        return local.get(key, couriers);
      },
    );
  }

  /** Keeps `courier`'s answer on route `key` for `ttlMs`; a failing store is noted, never thrown. */
  write(key: string, courier: string, entry: RateEntry, ttlMs: number): void {
    this.#local?.set(key, courier, entry);
    if (this.degraded) return;
    this.#settle(() => this.#store.set(key, courier, entry, ttlMs));
  }

  /** Drops these couriers' answers on route `key`, here and in the store. */
  async delete(key: string, couriers: readonly string[]): Promise<void> {
    this.#local?.delete(key, couriers);
    await this.#store.delete(key, couriers);
  }

  /** Drops every entry under `prefix`, here and in the store. */
  async deletePrefix(prefix: string): Promise<void> {
    this.#local?.deletePrefix(prefix);
    await this.#store.deletePrefix(prefix);
  }

  /**
   * Takes the store's short lock on `key`. `true` means "ask the provider yourself": the lock was taken, or the store
   * has no locks, or it is down (each instance then asks for itself rather than waiting on a store that is away).
   */
  async lock(key: string, courier: string, ttlMs: number): Promise<boolean> {
    const lock = this.#store.lock;
    if (lock === undefined || this.degraded) return true;
    try {
      return await this.#deadlines.race(lock.call(this.#store, key, courier, ttlMs));
    } catch {
      this.#trip();
      return true;
    }
  }

  /** Releases a lock taken by {@link RateCache.lock}; a failure only lets the lock expire by itself. */
  unlock(key: string, courier: string): void {
    const unlock = this.#store.unlock;
    if (unlock === undefined || this.degraded) return;
    this.#settle(() => unlock.call(this.#store, key, courier));
  }

  // The local copy follows what the shared store says, so it is current when the store goes away.
  #keepLocally(key: string, couriers: readonly string[], entries: Entries): Entries {
    const local = this.#local as MemoryRateStore;
    const route = local.peek(key);
    for (let i = 0; i < couriers.length; i++) {
      const entry = entries[i];
      if (entry === undefined) continue;
      const courier = couriers[i] as string;
      if (route?.get(courier)?.fetchedAt !== entry.fetchedAt) local.set(key, courier, frozenEntry(entry));
    }
    return entries;
  }

  #settle(operation: () => void | Promise<void>): void {
    try {
      const pending = operation();
      if (isThenable(pending)) Promise.resolve(pending).catch(() => this.#trip());
    } catch {
      this.#trip();
    }
  }

  #trip(): void {
    this.#downUntil = Date.now() + this.#retryMs;
  }
}
