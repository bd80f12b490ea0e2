import { LRUCache } from "lru-cache";
import type { IdempotencyRecordView } from "../journal/types.js";
import type { ClaimResult, IdempotencyStore } from "./types.js";

/** Options of {@link MemoryIdempotencyStore}. */
export interface MemoryIdempotencyStoreOptions {
  /**
   * Most keys kept (default 10,000). When full, the least recently claimed record goes first, so size it above
   * the number of events you receive per retention period.
   */
  maxEntries?: number;
  /** Epoch milliseconds; default `Date.now`. */
  clock?: () => number;
}

interface MemoryRecord {
  /** Owner token while a lease is live; `undefined` once released or completed. */
  owner: string | undefined;
  completed: boolean;
  failedAttempts: number;
  /** When this record stops counting: the lease's end, or the retention's end once completed or released. */
  expiresAt: number;
}

const CLAIMED_FIRST: ClaimResult = Object.freeze({ state: "claimed", attempt: 1 });
const IN_PROGRESS: ClaimResult = Object.freeze({ state: "in_progress" });
const COMPLETED: ClaimResult = Object.freeze({ state: "completed" });

/**
 * In-process idempotency store: an `lru-cache` bounded to `maxEntries`, each record expiring after its lease or
 * retention (kept as a deadline in the record, so completing an event is an update in place rather than a second
 * cache write). The default of every receiver; fine for a single process. Several processes or instances need a
 * shared store such as {@link RedisIdempotencyStore}.
 *
 * @example
 * createWebhookReceiver({ source: "qris", verify, idempotency: { store: new MemoryIdempotencyStore({ maxEntries: 50_000 }) } });
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #records: LRUCache<string, MemoryRecord>;
  readonly #clock: () => number;

  constructor(options: MemoryIdempotencyStoreOptions = {}) {
    // Bounded by `maxSize` with every record counting 1 rather than by `max`: lru-cache allocates its arrays for
    // `max` entries up front (about 160 KB and 1.8 ms for 10,000, paid by every receiver a test builds), while with
    // `maxSize` they grow with the records actually held. Eviction is the same least-recently-used order.
    this.#records = new LRUCache<string, MemoryRecord>({
      maxSize: options.maxEntries ?? 10_000,
      sizeCalculation: () => 1,
    });
    this.#clock = options.clock ?? Date.now;
  }

  claim(key: string, owner: string, leaseMs: number): ClaimResult {
    const now = this.#clock();
    const record = this.#live(key, now, true);
    if (record === undefined) {
      this.#records.set(key, { owner, completed: false, failedAttempts: 0, expiresAt: now + leaseMs });
      return CLAIMED_FIRST;
    }
    if (record.completed) return COMPLETED;
    if (record.owner !== undefined) return IN_PROGRESS;
    record.owner = owner;
    record.expiresAt = now + leaseMs;
    return { state: "claimed", attempt: record.failedAttempts + 1 };
  }

  complete(key: string, owner: string, retentionMs: number): boolean {
    const now = this.#clock();
    const record = this.#live(key, now);
    if (record === undefined) {
      // The lease ran out and nobody claimed the key since: the handler did finish, so record that.
      this.#records.set(key, { owner: undefined, completed: true, failedAttempts: 0, expiresAt: now + retentionMs });
      return true;
    }
    if (record.completed || record.owner !== owner) return false;
    record.owner = undefined;
    record.completed = true;
    record.expiresAt = now + retentionMs;
    return true;
  }

  release(key: string, owner: string, retentionMs: number): boolean {
    const now = this.#clock();
    const record = this.#live(key, now);
    if (record === undefined || record.completed || record.owner !== owner) return false;
    record.owner = undefined;
    record.failedAttempts++;
    record.expiresAt = now + retentionMs;
    return true;
  }

  /** The console's view of `key`'s live record (a lease or a retention not yet over); never the owner token. */
  inspect(key: string): IdempotencyRecordView | undefined {
    const record = this.#live(key, this.#clock());
    // `attempt`: the latest one (running, completed, or the last that failed and was released).
    const running = record && (record.completed || record.owner !== undefined);
    return (
      record && {
        key,
        state: record.completed ? "completed" : running ? "in_progress" : "released",
        attempt: record.failedAttempts + (running ? 1 : 0),
        expiresAt: record.expiresAt,
      }
    );
  }

  /** Number of records held (expired ones count until they are evicted or looked up). */
  get size(): number {
    return this.#records.size;
  }

  // Only a claim counts as use for the LRU order; completing or releasing right after it just peeks.
  #live(key: string, now: number, isClaim = false): MemoryRecord | undefined {
    const record = isClaim ? this.#records.get(key) : this.#records.peek(key);
    if (record === undefined || record.expiresAt > now) return record;
    this.#records.delete(key);
    return undefined;
  }
}
