import { LRUCache } from "lru-cache";
import { ConfigurationError } from "../errors/validation.js";

/**
 * Caching of static lookups (provinces, cities, districts, subdistricts, destination searches). Off by default:
 * pass `cache: {}` for the defaults or tune `ttlMs`/`max`. Costs, tracking, payment and QR status are never cached.
 *
 * @example
 * new ShippingClient({ apiKey, baseUrl, cache: { ttlMs: 3_600_000, max: 200 } });
 */
export interface LookupCacheOptions {
  /** How long an answer stays fresh, in ms. Default 6 hours (these lists change rarely). */
  ttlMs?: number;
  /** Most answers kept; the least recently used goes first. Default 500. */
  max?: number;
}

/** Default freshness of a cached lookup: 6 hours. */
export const DEFAULT_LOOKUP_CACHE_TTL_MS = 6 * 60 * 60 * 1000;
/** Default number of cached lookups. */
export const DEFAULT_LOOKUP_CACHE_MAX = 500;

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * A per-client LRU cache with a TTL read from the client's injectable clock. Each client owns its cache, so keys
 * are just operation + path + query and never contain the API key.
 *
 * @example
 * const cache = new LookupCache({ ttlMs: 1000 }, Date.now);
 * cache.set("listProvinces GET /api/v1/destination/province", response);
 */
export class LookupCache<V extends object> {
  readonly #entries: LRUCache<string, Entry<V>>;
  readonly #ttlMs: number;
  readonly #clock: () => number;

  constructor(options: LookupCacheOptions, clock: () => number) {
    const ttlMs = options.ttlMs ?? DEFAULT_LOOKUP_CACHE_TTL_MS;
    const max = options.max ?? DEFAULT_LOOKUP_CACHE_MAX;
    if (!Number.isFinite(ttlMs) || ttlMs <= 0)
      throw new ConfigurationError("cache.ttlMs", "cache.ttlMs must be above 0");
    if (!Number.isInteger(max) || max <= 0)
      throw new ConfigurationError("cache.max", "cache.max must be a positive integer");
    this.#entries = new LRUCache({ max });
    this.#ttlMs = ttlMs;
    this.#clock = clock;
  }

  /** The fresh value under `key`, or `undefined` (an expired entry is dropped). */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#clock() >= entry.expiresAt) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Stores `value` under `key` for the configured TTL. */
  set(key: string, value: V): void {
    this.#entries.set(key, { value, expiresAt: this.#clock() + this.#ttlMs });
  }

  /** Number of entries held (fresh or not yet purged). */
  get size(): number {
    return this.#entries.size;
  }

  /** Drops every entry. */
  clear(): void {
    this.#entries.clear();
  }
}

/**
 * Builds the cache a client asked for, or `undefined` when caching is off (`undefined` or `false`).
 *
 * @example
 * createLookupCache({ ttlMs: 60_000 }, Date.now); // a LookupCache
 * createLookupCache(false, Date.now); // undefined
 */
export function createLookupCache<V extends object>(
  option: LookupCacheOptions | false | undefined,
  clock: () => number,
): LookupCache<V> | undefined {
  return option === undefined || option === false ? undefined : new LookupCache<V>(option, clock);
}
