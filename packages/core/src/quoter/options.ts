import { ConfigurationError } from "../errors/validation.js";
import type { KirimbayarTelemetry } from "../telemetry/types.js";
import type { BackupRates } from "./backup.js";
import type { CostOperationOf, QuotableClient } from "./operations.js";
import type { RateStore } from "./types.js";
import { type BilledWeight, exactWeight } from "./weight.js";
import type { CacheWindows } from "./windows.js";

/**
 * The cache of a quoter: where answers live, how long each is served, and what two questions must share to share an
 * answer. Windows are ages since the provider answered.
 *
 * @example
 * const cache: RateCacheOptions = { store: redisRateStore({ client: redis }), freshMs: 10 * 60_000, maxAgeMs: 6 * 3_600_000 };
 */
export interface RateCacheOptions {
  /** Default: a {@link MemoryRateStore} of 10,000 answers, this process only. */
  store?: RateStore;
  /** Served without asking, up to this age. Default 15 minutes. */
  freshMs?: number;
  /**
   * After `freshMs`, served at once while one call refreshes it in the background, for this long. Default 45
   * minutes. `0` turns it off.
   */
  staleWhileRevalidateMs?: number;
  /**
   * After `freshMs`, served when the provider fails or has not answered within the budget, for this long. Default
   * 5 h 45 min. `0` turns it off.
   */
  staleIfErrorMs?: number;
  /**
   * Hard limit: an answer older than this is never served, whatever the windows above say. Default 6 hours. The
   * windows must end by then (`freshMs + staleWhileRevalidateMs` and `freshMs + staleIfErrorMs` at most `maxAgeMs`).
   */
  maxAgeMs?: number;
  /** Which weights share an answer. Default {@link exactWeight} (every gram counts); see {@link perKilogramWeight}. */
  billedWeight?: BilledWeight;
  /** Answers kept in this process beside a shared store, for when it is down. Default 10,000. */
  localMax?: number;
  /**
   * How long a shared store may take to answer before the quoter uses its local copy. Default 100 ms (checked every
   * half of it, so a store is given up on after 100 to 150 ms).
   */
  storeTimeoutMs?: number;
  /** After a shared store failed, how long it is left alone before it is tried again. Default 1,000 ms. */
  storeRetryMs?: number;
  /** How often a quote waiting on another instance's call looks for its answer in the shared store. Default 20 ms. */
  pollMs?: number;
}

/**
 * Options of {@link createRateQuoter}.
 *
 * @example
 * const options: RateQuoterOptions<ShippingClient> = { client: shipping, couriers: ["jne", "sicepat", "pos"], budgetMs: 800 };
 */
export interface RateQuoterOptions<C extends QuotableClient, O extends CostOperationOf<C> = CostOperationOf<C>> {
  /** A `ShippingClient`, `ShippingProClient` or `ShippingStarterClient`. Its account names the cached prices. */
  client: C;
  /**
   * The client's cost operation: `calculateDomesticCost` (default), `calculateDistrictDomesticCost` or
   * `calculateInternationalCost` on the current interface; `calculateCost` (default) or `calculateInternationalCost`
   * on Pro; `calculateCost` on Starter.
   */
  operation?: O;
  /** The couriers a quote prices (a quote may ask for a subset). Codes are trimmed and lower-cased. */
  couriers: readonly string[];
  /** Time a quote may take, from the call to the answer. Default 800 ms. */
  budgetMs?: number;
  /** The cache; `false` for none (identical questions are still asked once). Default: memory, the windows above. */
  cache?: RateCacheOptions | false;
  /** Prices shown for a courier that has no price in time. None by default (the courier is listed as missing). */
  backup?: BackupRates;
  /**
   * Couriers in good standing share one call per route (fewer calls of the account's allowance); a shared call not
   * answered after `hedgeMs` (default half the budget) is split, each courier then asked on its own. `false`: every
   * courier is always asked on its own (the fastest answers, the most calls).
   */
  batching?: { hedgeMs?: number } | false;
  /** Longest a call to the provider may take; a late answer within it still fills the cache. Default 10,000 ms. */
  callTimeoutMs?: number;
  /** After a courier's call fails, how long quotes do not ask it again. Default 10,000 ms; `0` asks every time. */
  failureCooldownMs?: number;
  /**
   * A name for this client's prices. Needed only for a client kirimbayar did not build; for its own clients the
   * account is told apart by a digest of the base URL and the keys, so two accounts' prices never mix.
   */
  account?: string;
  /** Current time in epoch ms: ages, windows, cooldowns and the stats' days. Default `Date.now`. */
  clock?: () => number;
  /** OpenTelemetry meter (and tracer) for the quoter's counters (see {@link QuoterStats}). */
  telemetry?: KirimbayarTelemetry;
}

/** Defaults of {@link RateCacheOptions}. */
export const DEFAULT_RATE_CACHE = {
  freshMs: 15 * 60_000,
  staleWhileRevalidateMs: 45 * 60_000,
  staleIfErrorMs: 5 * 3_600_000 + 45 * 60_000,
  maxAgeMs: 6 * 3_600_000,
} as const;
/** Default time budget of a quote. */
export const DEFAULT_QUOTE_BUDGET_MS = 800;

const LONGEST_BUDGET_MS = 60_000;
const LONGEST_AGE_MS = 7 * 24 * 3_600_000;

/**
 * `value` as an integer option from `min` to `max`, `fallback` when absent; a ConfigurationError naming the option
 * otherwise.
 *
 * @example
 * integerOption(undefined, "budgetMs", 1, 60_000, 800); // 800
 */
export function integerOption(value: unknown, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigurationError(name, `${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** A quoter's settings once checked. */
export interface ResolvedOptions {
  couriers: readonly string[];
  budgetMs: number;
  hedgeMs: number | undefined;
  callTimeoutMs: number;
  failureCooldownMs: number;
  clock: () => number;
  cache:
    | (CacheWindows & {
        store: RateStore | undefined;
        billedWeight: BilledWeight;
        localMax: number;
        storeTimeoutMs: number;
        storeRetryMs: number;
        pollMs: number;
      })
    | undefined;
}

/**
 * The courier codes of `list`, trimmed and lower-cased; a ConfigurationError for an empty list, a code that cannot be
 * sent (empty, `:` or whitespace inside) or a code listed twice.
 *
 * @example
 * courierList([" JNE", "pos"]); // ["jne", "pos"]
 */
export function courierList(list: unknown): string[] {
  if (!Array.isArray(list) || list.length === 0) {
    throw new ConfigurationError("couriers", "couriers must be a non-empty list of courier codes, e.g. ['jne', 'pos']");
  }
  const codes: string[] = [];
  list.forEach((raw, index) => {
    const code = typeof raw === "string" ? raw.trim().toLowerCase() : "";
    if (!/^[^\s:]+$/.test(code)) {
      throw new ConfigurationError("couriers", `couriers[${index}] must be a courier code without ':' or whitespace`);
    }
    if (codes.includes(code)) throw new ConfigurationError("couriers", `couriers lists "${code}" twice`);
    codes.push(code);
  });
  return codes;
}

/**
 * Checks every option of a quoter (before anything is asked) and fills in the defaults.
 *
 * @example
 * resolveOptions({ client, couriers: ["jne"], budgetMs: 0 }); // throws ConfigurationError("budgetMs")
 */
export function resolveOptions(options: RateQuoterOptions<QuotableClient>): ResolvedOptions {
  const couriers = courierList(options.couriers);
  const budgetMs = integerOption(options.budgetMs, "budgetMs", 1, LONGEST_BUDGET_MS, DEFAULT_QUOTE_BUDGET_MS);
  const callTimeoutMs = integerOption(options.callTimeoutMs, "callTimeoutMs", 1, LONGEST_BUDGET_MS, 10_000);
  const failureCooldownMs = integerOption(options.failureCooldownMs, "failureCooldownMs", 0, LONGEST_AGE_MS, 10_000);
  const batching = options.batching;
  if (batching !== undefined && batching !== false && (typeof batching !== "object" || batching === null)) {
    throw new ConfigurationError("batching", "batching must be { hedgeMs } or false");
  }
  const hedgeMs =
    batching === false
      ? undefined
      : integerOption(batching?.hedgeMs, "batching.hedgeMs", 1, callTimeoutMs, Math.max(1, Math.floor(budgetMs / 2)));
  if (options.clock !== undefined && typeof options.clock !== "function") {
    throw new ConfigurationError("clock", "clock must be a function returning epoch milliseconds");
  }
  return {
    couriers,
    budgetMs,
    hedgeMs,
    callTimeoutMs,
    failureCooldownMs,
    clock: options.clock ?? Date.now,
    cache: options.cache === false ? undefined : resolveCache(options.cache ?? {}),
  };
}

function resolveCache(cache: RateCacheOptions): NonNullable<ResolvedOptions["cache"]> {
  if (typeof cache !== "object" || cache === null) {
    throw new ConfigurationError("cache", "cache must be an options object or false");
  }
  const age = (name: keyof typeof DEFAULT_RATE_CACHE, min: number) =>
    integerOption(cache[name], `cache.${name}`, min, LONGEST_AGE_MS, DEFAULT_RATE_CACHE[name]);
  const freshMs = age("freshMs", 1);
  const revalidateMs = age("staleWhileRevalidateMs", 0);
  const ifErrorMs = age("staleIfErrorMs", 0);
  const maxAgeMs = age("maxAgeMs", 1);
  for (const [name, end] of [
    ["freshMs", freshMs],
    ["staleWhileRevalidateMs", freshMs + revalidateMs],
    ["staleIfErrorMs", freshMs + ifErrorMs],
  ] as const) {
    if (end > maxAgeMs) {
      throw new ConfigurationError(
        `cache.${name}`,
        `cache.${name} ends ${end} ms after a price was fetched, past cache.maxAgeMs (${maxAgeMs}): a price is never served past its maximum age`,
      );
    }
  }
  const store = cache.store;
  if (store !== undefined) {
    for (const method of ["get", "set", "delete", "deletePrefix"] as const) {
      if (typeof store?.[method] !== "function") {
        throw new ConfigurationError("cache.store", `cache.store must have a ${method}() method (see RateStore)`);
      }
    }
    if ((store.lock === undefined) !== (store.unlock === undefined)) {
      throw new ConfigurationError("cache.store", "cache.store must have both lock() and unlock(), or neither");
    }
  }
  if (cache.billedWeight !== undefined && typeof cache.billedWeight !== "function") {
    throw new ConfigurationError(
      "cache.billedWeight",
      "cache.billedWeight must be a function (grams, courier) => grams",
    );
  }
  return {
    freshMs,
    revalidateUntilMs: freshMs + revalidateMs,
    ifErrorUntilMs: freshMs + ifErrorMs,
    maxAgeMs,
    store,
    billedWeight: cache.billedWeight ?? exactWeight,
    localMax: integerOption(cache.localMax, "cache.localMax", 1, 10_000_000, 10_000),
    storeTimeoutMs: integerOption(cache.storeTimeoutMs, "cache.storeTimeoutMs", 1, LONGEST_BUDGET_MS, 100),
    storeRetryMs: integerOption(cache.storeRetryMs, "cache.storeRetryMs", 0, LONGEST_AGE_MS, 1_000),
    pollMs: integerOption(cache.pollMs, "cache.pollMs", 1, 10_000, 20),
  };
}
