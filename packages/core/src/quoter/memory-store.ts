import { LRUCache } from "lru-cache";
import { ConfigurationError } from "../errors/validation.js";
import type { RateEntry, RateStore } from "./types.js";

/** Options of {@link memoryRateStore}. */
export interface MemoryRateStoreOptions {
  /** Most courier answers kept; the least recently used goes first. Default 10,000 (a few MB). */
  max?: number;
}

/** Default bound of a memory rate store. */
export const DEFAULT_MEMORY_RATE_STORE_MAX = 10_000;
const LARGEST_MAX = 10_000_000;

/**
 * A bounded LRU of courier answers in this process (lru-cache, already core's one dependency). Entries are kept as
 * they are (no copy, no serialisation): the quoter freezes them, so a caller cannot change what the next quote gets.
 * Age is judged by the quoter on its own clock, so the store sets no timer and honours no TTL itself.
 *
 * @example
 * const quoter = createRateQuoter({ client, couriers, cache: { store: memoryRateStore({ max: 50_000 }) } });
 */
export class MemoryRateStore implements RateStore {
  readonly #entries: LRUCache<string, RateEntry>;

  constructor(options: MemoryRateStoreOptions = {}) {
    const max = options.max ?? DEFAULT_MEMORY_RATE_STORE_MAX;
    if (!Number.isInteger(max) || max < 1 || max > LARGEST_MAX) {
      throw new ConfigurationError("max", `max must be an integer from 1 to ${LARGEST_MAX}`);
    }
    this.#entries = new LRUCache({ max });
  }

  get(keys: readonly string[]): (RateEntry | undefined)[] {
    const entries = new Array<RateEntry | undefined>(keys.length);
    for (let i = 0; i < keys.length; i++) entries[i] = this.#entries.get(keys[i] as string);
    return entries;
  }

  /** The entry under `key` without counting it as used (for the quoter's own bookkeeping). */
  peek(key: string): RateEntry | undefined {
    return this.#entries.peek(key);
  }

  set(key: string, entry: RateEntry): void {
    this.#entries.set(key, entry);
  }

  delete(keys: readonly string[]): void {
    for (const key of keys) this.#entries.delete(key);
  }

  deletePrefix(prefix: string): void {
    const doomed: string[] = [];
    for (const key of this.#entries.keys()) if (key.startsWith(prefix)) doomed.push(key);
    this.delete(doomed);
  }

  /** Number of answers held. */
  get size(): number {
    return this.#entries.size;
  }
}

/**
 * A {@link MemoryRateStore}: the default store of a quoter, and the local copy a quoter keeps beside a shared store.
 *
 * @example
 * createRateQuoter({ client, couriers: ["jne", "pos"], cache: { store: memoryRateStore({ max: 2_000 }) } });
 */
export function memoryRateStore(options: MemoryRateStoreOptions = {}): MemoryRateStore {
  return new MemoryRateStore(options);
}
