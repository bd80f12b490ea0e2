import { LRUCache } from "lru-cache";
import type { ClaimResult, IdempotencyStore } from "./types.js";

/** Options of {@link MemoryIdempotencyStore}. */
export interface MemoryIdempotencyStoreOptions {
  /**
   * Most keys kept (default 10,000). When full, the least recently used record goes first, so size it above the
   * number of events you receive per retention period.
   */
  maxEntries?: number;
}

interface MemoryRecord {
  /** Owner token while a lease is live; `undefined` once released or completed. */
  owner: string | undefined;
  completed: boolean;
  failedAttempts: number;
}

const CLAIMED_FIRST: ClaimResult = Object.freeze({ state: "claimed", attempt: 1 });
const IN_PROGRESS: ClaimResult = Object.freeze({ state: "in_progress" });
const COMPLETED: ClaimResult = Object.freeze({ state: "completed" });

/**
 * In-process idempotency store: bounded (`lru-cache`), each record expiring after its lease or retention. The
 * default of every receiver; fine for a single process. Several processes or instances need a shared store such
 * as {@link RedisIdempotencyStore}.
 *
 * @example
 * createWebhookReceiver({ source: "qris", verify, idempotency: { store: new MemoryIdempotencyStore({ maxEntries: 50_000 }) } });
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #records: LRUCache<string, MemoryRecord>;

  constructor(options: MemoryIdempotencyStoreOptions = {}) {
    this.#records = new LRUCache<string, MemoryRecord>({ max: options.maxEntries ?? 10_000 });
  }

  claim(key: string, owner: string, leaseMs: number): ClaimResult {
    const record = this.#records.get(key);
    if (record === undefined) {
      this.#records.set(key, { owner, completed: false, failedAttempts: 0 }, { ttl: leaseMs });
      return CLAIMED_FIRST;
    }
    if (record.completed) return COMPLETED;
    if (record.owner !== undefined) return IN_PROGRESS;
    record.owner = owner;
    this.#records.set(key, record, { ttl: leaseMs });
    return { state: "claimed", attempt: record.failedAttempts + 1 };
  }

  complete(key: string, owner: string, retentionMs: number): boolean {
    const record = this.#records.get(key);
    if (record !== undefined && (record.completed || record.owner !== owner)) return false;
    this.#records.set(key, { owner: undefined, completed: true, failedAttempts: 0 }, { ttl: retentionMs });
    return true;
  }

  release(key: string, owner: string, retentionMs: number): boolean {
    const record = this.#records.get(key);
    if (record === undefined || record.completed || record.owner !== owner) return false;
    record.owner = undefined;
    record.failedAttempts++;
    this.#records.set(key, record, { ttl: retentionMs });
    return true;
  }

  /** Number of records currently kept (live leases, completions and failure counts). */
  get size(): number {
    return this.#records.size;
  }
}
