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
 * Where a quoter keeps prices: small enough to write your own (a database table, Memcached, a KV store). Answers are
 * grouped by route: `key` names everything a price depends on but the courier (account, operation, origin,
 * destination, billed weight, other input fields), and each courier's answer is a field under it, so a quote of five
 * couriers is one lookup. Methods may answer synchronously or with a promise. A store that throws or rejects is
 * treated as down: the quoter answers from its local memory and the provider until it works again.
 *
 * @example
 * const routes = new Map<string, Map<string, RateEntry>>();
 * const store: RateStore = {
 *   get: (key, couriers) => couriers.map((courier) => routes.get(key)?.get(courier)),
 *   set: (key, courier, entry) => void routes.set(key, (routes.get(key) ?? new Map()).set(courier, entry)),
 *   delete: (key, couriers) => couriers.forEach((courier) => routes.get(key)?.delete(courier)),
 *   deletePrefix: (prefix) => [...routes.keys()].filter((k) => k.startsWith(prefix)).forEach((k) => routes.delete(k)),
 * };
 */
export interface RateStore {
  /** The answers of `couriers` on the route `key`, in order (`undefined` where there is none). */
  get(
    key: string,
    couriers: readonly string[],
  ): readonly (RateEntry | undefined)[] | Promise<readonly (RateEntry | undefined)[]>;
  /**
   * Keeps `courier`'s answer on route `key`; it may be dropped after `ttlMs` (the quoter never serves it past its max
   * age anyway).
   */
  set(key: string, courier: string, entry: RateEntry, ttlMs: number): void | Promise<void>;
  /** Drops these couriers' answers on route `key` (explicit invalidation). */
  delete(key: string, couriers: readonly string[]): void | Promise<void>;
  /** Drops every route whose key starts with `prefix` (all prices of one account and operation). */
  deletePrefix(prefix: string): void | Promise<void>;
  /**
   * Shared stores only: takes a short lock on one courier's question for `ttlMs`; `true` when this instance got it and
   * should ask the provider, `false` when another instance is asking (this one then waits for the answer to appear).
   * Without it, identical questions are coalesced within each process only.
   */
  lock?(key: string, courier: string, ttlMs: number): Promise<boolean>;
  /** Releases a lock this instance took. */
  unlock?(key: string, courier: string): Promise<void>;
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
  /** When the provider gave this price, epoch ms on the quoter's clock; `undefined` for a backup rate. */
  fetchedAt: number | undefined;
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
  /** For `not_served`: when the provider said so, epoch ms on the quoter's clock. */
  fetchedAt?: number;
  /** For `failed`: the error of the last call (a `KirimbayarError`). */
  error?: unknown;
}

/**
 * A quote: the couriers with prices, in the order they were asked, and the couriers without one, each with its
 * reason. `complete` is true when every courier has a provider answer (fresh or cached, priced or not served), so
 * neither a backup rate nor a pending or failed courier. Read-only: a quote answered wholly from fresh cached prices
 * is shared by the quotes of the same question (frozen, with frozen options); copy what you want to change.
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
