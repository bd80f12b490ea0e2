// What a quote answers and what a cache store keeps: the public shapes of `@kirimbayar/core/quoter`.

/**
 * One priced service of one courier, the same shape whichever interface priced it (current, Pro, Starter,
 * international). `courier` is the code the shop asked for; `code` is what the provider wrote (it may differ, e.g.
 * `J&T` for `jnt`).
 *
 * @example
 * const option: RateOption = { courier: "jne", code: "jne", name: "JNE", service: "REG", description: "Reguler",
 *   cost: 18_000, etd: "2-3 day" };
 */
export interface RateOption {
  courier: string;
  code: string;
  name: string | undefined;
  service: string;
  description: string | undefined;
  /** Integer rupiah domestically; international options may carry a decimal amount in `currency`. */
  cost: number;
  /** As the provider wrote it (`"2-3 day"`, `"1-2 HARI"`, `""`): read it with `parseEtd`. */
  etd: string;
  currency?: string;
  note?: string;
}

/**
 * A courier's answer as a cache store keeps it: when the provider gave it (the quoter's clock, epoch ms) and the
 * options. An empty `options` list is the answer "this courier does not serve the route", which is cached too.
 *
 * @example
 * const entry: RateEntry = { fetchedAt: Date.now(), options: [] }; // not served
 */
export interface RateEntry {
  fetchedAt: number;
  options: RateOption[];
}

/**
 * Where a quoter keeps prices: small enough to write your own (a database table, Memcached, a CDN KV). Methods may
 * answer synchronously or with a promise. A store that throws or rejects is treated as down: the quoter answers
 * from its local memory and the provider until it works again.
 *
 * @example
 * const store: RateStore = {
 *   get: (keys) => keys.map((key) => map.get(key)),
 *   set: (key, entry) => void map.set(key, entry),
 *   delete: (keys) => keys.forEach((key) => map.delete(key)),
 *   deletePrefix: (prefix) => [...map.keys()].filter((k) => k.startsWith(prefix)).forEach((k) => map.delete(k)),
 * };
 */
export interface RateStore {
  /** The entries under `keys`, in order (`undefined` where there is none). */
  get(keys: readonly string[]): readonly (RateEntry | undefined)[] | Promise<readonly (RateEntry | undefined)[]>;
  /** Keeps `entry` under `key`; it may be dropped after `ttlMs` (the quoter never serves it past its max age anyway). */
  set(key: string, entry: RateEntry, ttlMs: number): void | Promise<void>;
  /** Drops these entries (explicit invalidation). */
  delete(keys: readonly string[]): void | Promise<void>;
  /** Drops every entry whose key starts with `prefix` (all prices of one account). */
  deletePrefix(prefix: string): void | Promise<void>;
  /**
   * Shared stores only: takes a short lock on `key` for `ttlMs`; `true` when this instance got it and should ask the
   * provider, `false` when another instance is asking (this one then waits for the entry to appear). Without it,
   * identical questions are coalesced within each process only.
   */
  lock?(key: string, ttlMs: number): Promise<boolean>;
  /** Releases a lock this instance took. */
  unlock?(key: string): Promise<void>;
}

/** Where a courier's price in a quote came from. */
export type RateSource = "provider" | "cache" | "backup";

/** Why a courier has no price from the provider in this quote. */
export type MissingReason = "pending" | "not_served" | "failed";

/**
 * One courier's prices in a quote.
 *
 * @example
 * for (const rates of quote.rates) console.log(rates.courier, rates.source, rates.fetchedAt, rates.options.length);
 */
export interface CourierRates {
  courier: string;
  options: RateOption[];
  /**
   * `provider`: asked during this quote (or by another quote it waited for); `cache`: a stored answer; `backup`: the
   * shop's backup rate, because no price arrived in time (`backupReason`).
   */
  source: RateSource;
  /** When the provider gave this price; `undefined` for a backup rate. */
  fetchedAt: Date | undefined;
  /** Served past its fresh window (stale-while-revalidate, or stale-if-error because the provider failed or was late). */
  stale: boolean;
  /** Only with `source: "backup"`: why the courier had no price in time. */
  backupReason?: "pending" | "failed";
}

/**
 * A courier without a price in a quote, and why: `pending` (still being asked when the budget ran out; a late answer
 * fills the cache for the next view), `not_served` (the provider says this courier does not serve the route), or
 * `failed` (the provider failed; `error` says how).
 *
 * @example
 * for (const m of quote.missing) console.log(m.courier, m.reason);
 */
export interface MissingCourier {
  courier: string;
  reason: MissingReason;
  /** For `not_served`: when the provider said so. */
  fetchedAt?: Date;
  /** For `failed`: the error of the last call (a `KirimbayarError`). */
  error?: unknown;
}

/**
 * A quote: the couriers with prices, in the order they were asked, and the couriers without one, each with its
 * reason. `complete` is true when every courier has a provider answer (fresh or cached, priced or not served), so
 * neither a backup rate nor a pending or failed courier.
 *
 * @example
 * const quote = await quoter.quote({ origin: 31555, destination: 68423, weight: 1200 });
 * if (!quote.complete) log.info("partial quote", quote.missing);
 */
export interface RateQuote {
  rates: CourierRates[];
  missing: MissingCourier[];
  complete: boolean;
}
