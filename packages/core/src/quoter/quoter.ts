import { ConfigurationError } from "../errors/validation.js";
import { type ShippingInterface, shippingAccountOf } from "../shipping/account.js";
import { type BackupLookup, backupLookup } from "./backup.js";
import { CourierHealth } from "./courier-health.js";
import type { Flight } from "./flight.js";
import { memoryRateStore } from "./memory-store.js";
import {
  type ChosenOperation,
  type CostInputOf,
  type CostOperation,
  type CostOperationOf,
  costOperation,
  type QuotableClient,
} from "./operations.js";
import { type RateQuoterOptions, type ResolvedOptions, resolveOptions } from "./options.js";
import { Pricer } from "./pricer.js";
import { RateCache } from "./rate-cache.js";
import { type QuoteRequest, QuoteRequestReader, type ReadQuote } from "./request.js";
import { QuoterCounter, type QuoterStats } from "./stats.js";
import type { CourierRates, MissingCourier, RateEntry, RateQuote } from "./types.js";
import { freshnessOf } from "./windows.js";

/**
 * Prices couriers for a checkout within a time budget, from a cache when it can (see {@link createRateQuoter}).
 *
 * @example
 * const quote = await quoter.quote({ origin: 31555, destination: 68423, weight: 1200 });
 */
export interface RateQuoter<I> {
  /**
   * Prices the couriers (all of the quoter's, or `couriers`) on a route and answers within the budget with every
   * price there is: cached, just asked, or the backup rate; each courier without one is listed with its reason.
   * Bad input is refused with a `RequestValidationError` before the cache or the provider is asked.
   */
  quote(request: QuoteRequest<I>): Promise<RateQuote>;
  /** Drops the cached prices of this route (all of the quoter's couriers, or `couriers`), here and in the store. */
  invalidate(request: QuoteRequest<I>): Promise<void>;
  /** Drops every cached price of this quoter's account and operation, here and in the store. */
  invalidateAll(): Promise<void>;
  /** Provider calls made and saved, in total, per operation and per day. */
  stats(): QuoterStats;
}

type Entries = readonly (RateEntry | undefined)[];

const NO_ENTRIES: Entries = [];
const isPromise = <T>(value: unknown): value is Promise<T> => value instanceof Promise;

function waitFor(flights: readonly Flight[], ms: number): Promise<void> | undefined {
  let open = 0;
  for (const flight of flights) if (!flight.settled) open += 1;
  if (open === 0) return undefined;
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, Math.max(0, ms));
    for (const flight of flights) {
      if (flight.settled) continue;
      void flight.promise.then(() => {
        open -= 1;
        if (open === 0) {
          clearTimeout(timer);
          resolve();
        }
      });
    }
  });
}

function kindOf(client: object): ShippingInterface {
  const methods = client as Record<string, unknown>;
  if (typeof methods.calculateDomesticCost === "function") return "current";
  return typeof methods.getCurrency === "function" ? "pro" : "starter";
}

/** What a quote does for one courier: answer from the cache, ask the provider, or neither (it is cooling down). */
interface Plan {
  entry: RateEntry | undefined;
  /** The entry may be served as it is. */
  serve: boolean;
  /** Served entry past its fresh window (revalidated in the background). */
  stale: boolean;
  /** An entry to serve only if the provider fails or is late (stale-if-error). */
  fallback: RateEntry | undefined;
  /** The courier is cooling down after a failure: not asked, with this error. */
  cooling: { error: unknown } | undefined;
  flight: Flight | undefined;
}

class Quoter<I> implements RateQuoter<I> {
  readonly #settings: ResolvedOptions;
  readonly #operation: CostOperation;
  readonly #reader: QuoteRequestReader;
  readonly #cache: RateCache | undefined;
  readonly #pricer: Pricer;
  readonly #health: CourierHealth;
  readonly #counter: QuoterCounter;
  readonly #backup: BackupLookup | undefined;
  readonly #account: () => Promise<string>;
  readonly #clock: () => number;
  #prefix: string | undefined;

  constructor(options: RateQuoterOptions<QuotableClient>) {
    if (options === null || typeof options !== "object") {
      throw new ConfigurationError("options", "createRateQuoter takes { client, couriers, budgetMs, cache }");
    }
    const client = options.client as unknown;
    const tag = shippingAccountOf(client);
    const label = options.account;
    if (label !== undefined && (typeof label !== "string" || label.trim() === "" || /\s/.test(label))) {
      throw new ConfigurationError("account", "account must be a non-empty name without whitespace");
    }
    if (typeof client !== "object" || client === null || (tag === undefined && label === undefined)) {
      throw new ConfigurationError(
        "client",
        "client must be a ShippingClient, ShippingProClient or ShippingStarterClient (for another object, also pass account: a name for its prices)",
      );
    }
    const kind = tag?.interface ?? kindOf(client);
    const operation = costOperation(client, kind, options.operation);
    this.#operation = operation;
    this.#settings = resolveOptions(options);
    this.#backup = backupLookup(options.backup);
    this.#clock = this.#settings.clock;
    this.#reader = new QuoteRequestReader(this.#settings.couriers, this.#settings.budgetMs, operation);
    const cache = this.#settings.cache;
    this.#cache =
      cache === undefined
        ? undefined
        : new RateCache(cache.store ?? memoryRateStore(), {
            localMax: cache.localMax,
            timeoutMs: cache.storeTimeoutMs,
            retryMs: cache.storeRetryMs,
          });
    this.#health = new CourierHealth(this.#settings.failureCooldownMs);
    this.#counter = new QuoterCounter(operation.name, this.#clock, options.telemetry);
    this.#pricer = new Pricer({
      operation,
      cache: this.#cache,
      health: this.#health,
      counter: this.#counter,
      clock: this.#clock,
      callTimeoutMs: this.#settings.callTimeoutMs,
      hedgeMs: this.#settings.hedgeMs,
      maxAgeMs: cache?.maxAgeMs ?? 0,
      pollMs: cache?.pollMs ?? 20,
    });
    const suffix = `${label === undefined ? "" : `+${label.trim()}`} ${kind} ${operation.name} `;
    this.#account = async () => {
      const fingerprint = tag === undefined ? "custom" : await tag.fingerprint();
      this.#prefix = `${fingerprint}${suffix}`;
      return this.#prefix;
    };
  }

  async quote(request: QuoteRequest<I>): Promise<RateQuote> {
    const startedAt = performance.now();
    const read = this.#reader.read(request);
    const prefix = this.#prefix ?? (await this.#account());
    const keys = this.#keys(prefix, read);
    const found = this.#cache === undefined ? NO_ENTRIES : this.#cache.read(keys);
    const entries = isPromise<Entries>(found) ? await found : found;
    const plans = this.#plan(read, keys, entries);
    const flights: Flight[] = [];
    for (const plan of plans) if (plan.flight !== undefined) flights.push(plan.flight);
    const waiting = waitFor(flights, read.budgetMs - (performance.now() - startedAt));
    if (waiting !== undefined) await waiting;
    return this.#answer(read, plans);
  }

  async invalidate(request: QuoteRequest<I>): Promise<void> {
    const read = this.#reader.read(request);
    const keys = this.#keys(this.#prefix ?? (await this.#account()), read);
    this.#pricer.forget(keys);
    await this.#cache?.delete(keys);
  }

  async invalidateAll(): Promise<void> {
    const prefix = this.#prefix ?? (await this.#account());
    this.#pricer.forget();
    await this.#cache?.deletePrefix(prefix);
  }

  stats(): QuoterStats {
    return this.#counter.snapshot();
  }

  #keys(prefix: string, read: ReadQuote): string[] {
    const billed = this.#settings.cache?.billedWeight;
    const keys = new Array<string>(read.couriers.length);
    for (let i = 0; i < keys.length; i++) {
      const courier = read.couriers[i] as string;
      const weight = billed === undefined ? read.weight : billed(read.weight, courier);
      if (typeof weight !== "number" || !Number.isFinite(weight) || weight <= 0) {
        throw new ConfigurationError("cache.billedWeight", "cache.billedWeight must return a positive number of grams");
      }
      keys[i] = `${prefix}${read.route} ${weight} ${courier}`;
    }
    return keys;
  }

  #plan(read: ReadQuote, keys: readonly string[], entries: Entries): Plan[] {
    const windows = this.#settings.cache;
    const now = this.#clock();
    const plans = new Array<Plan>(keys.length);
    let hits = 0;
    const ask: number[] = [];
    const refresh: number[] = [];
    for (let i = 0; i < keys.length; i++) {
      const entry = entries[i];
      const freshness =
        entry === undefined || windows === undefined
          ? "expired"
          : freshnessOf(Math.max(0, now - entry.fetchedAt), windows);
      const plan: Plan = {
        entry,
        serve: freshness === "fresh" || freshness === "revalidate",
        stale: freshness === "revalidate",
        fallback: freshness === "if_error" ? entry : undefined,
        cooling: undefined,
        flight: undefined,
      };
      plans[i] = plan;
      const courier = read.couriers[i] as string;
      if (plan.serve) {
        hits += 1;
        if (plan.stale && this.#health.coolingError(courier, now) === undefined) refresh.push(i);
        continue;
      }
      plan.cooling = this.#health.coolingError(courier, now);
      if (plan.cooling === undefined) ask.push(i);
    }
    this.#counter.saved("cache_hit", hits);
    if (refresh.length > 0) this.#ask(read, keys, entries, refresh);
    if (ask.length > 0) {
      const flights = this.#ask(read, keys, entries, ask);
      ask.forEach((index, n) => {
        (plans[index] as Plan).flight = flights[n];
      });
    }
    return plans;
  }

  #ask(read: ReadQuote, keys: readonly string[], entries: Entries, indexes: readonly number[]): Flight[] {
    const { flights, joined } = this.#pricer.ask({
      input: read.input,
      batchable: this.#operation.batchable(read.extras),
      couriers: indexes.map((i) => read.couriers[i] as string),
      keys: indexes.map((i) => keys[i] as string),
      seen: indexes.map((i) => entries[i]?.fetchedAt),
    });
    this.#counter.saved("coalesced", joined);
    return flights;
  }

  #answer(read: ReadQuote, plans: readonly Plan[]): RateQuote {
    const rates: CourierRates[] = [];
    const missing: MissingCourier[] = [];
    let complete = true;
    let backups = 0;
    let staleIfError = 0;
    for (let i = 0; i < plans.length; i++) {
      const plan = plans[i] as Plan;
      const courier = read.couriers[i] as string;
      const outcome = plan.flight?.outcome;
      const answered = plan.serve ? plan.entry : outcome?.kind === "answered" ? outcome.entry : undefined;
      if (answered !== undefined) {
        if (answered.options.length === 0) {
          missing.push({ courier, reason: "not_served", fetchedAt: new Date(answered.fetchedAt) });
        } else {
          rates.push({
            courier,
            options: answered.options,
            source: plan.serve ? "cache" : "provider",
            fetchedAt: new Date(answered.fetchedAt),
            stale: plan.stale,
          });
        }
        continue;
      }
      const error = outcome?.kind === "failed" ? outcome.error : plan.cooling?.error;
      const reason = error === undefined ? "pending" : "failed";
      if (plan.fallback !== undefined) {
        staleIfError += 1;
        if (plan.fallback.options.length === 0) {
          missing.push({ courier, reason: "not_served", fetchedAt: new Date(plan.fallback.fetchedAt) });
        } else {
          rates.push({
            courier,
            options: plan.fallback.options,
            source: "cache",
            fetchedAt: new Date(plan.fallback.fetchedAt),
            stale: true,
          });
        }
        continue;
      }
      complete = false;
      const backup = this.#backup?.(read, courier);
      if (backup !== undefined) {
        backups += 1;
        rates.push({
          courier,
          options: backup,
          source: "backup",
          fetchedAt: undefined,
          stale: false,
          backupReason: reason,
        });
      } else {
        missing.push(error === undefined ? { courier, reason } : { courier, reason, error });
      }
    }
    this.#counter.fallback("backup", backups);
    this.#counter.fallback("stale_if_error", staleIfError);
    this.#counter.quote(complete);
    return { rates, missing, complete };
  }
}

/**
 * Builds a rate quoter: checkout prices within a time budget that never wait on a slow courier and never spend the
 * account's allowance twice on the same question.
 *
 * - Each courier's price is asked on its own terms and the quote answers within `budgetMs` with every price that
 *   arrived; a courier without one is named with its reason (pending, not served, failed) or shown at the shop's
 *   backup rate. A late answer still fills the cache for the next view.
 * - Prices are cached per account, operation, origin, destination, billed weight, courier and every other input
 *   field, with fresh, stale-while-revalidate and stale-if-error windows and a hard maximum age.
 * - Identical questions asked at once are asked once, in this process and, with a shared store (Redis), across
 *   instances.
 *
 * Every option is checked here, and every quote's input before anything is asked: a `ConfigurationError` or a
 * `RequestValidationError` names what is wrong.
 *
 * @example
 * import { ShippingClient } from "@kirimbayar/core";
 * import { createRateQuoter } from "@kirimbayar/core/quoter";
 *
 * const shipping = new ShippingClient({ apiKey: process.env.SHIPPING_KEY!, baseUrl: process.env.SHIPPING_URL! });
 * const quoter = createRateQuoter({
 *   client: shipping,
 *   couriers: ["jne", "sicepat", "jnt", "pos", "anteraja"],
 *   budgetMs: 800,
 *   backup: { flat: { cost: 30_000, etd: "2-5 day" } },
 * });
 * const quote = await quoter.quote({ origin: 31555, destination: 68423, weight: 1200 });
 * for (const { courier, options, source } of quote.rates) console.log(courier, source, options[0]?.cost);
 * for (const { courier, reason } of quote.missing) console.log(courier, reason);
 */
export function createRateQuoter<C extends QuotableClient, O extends CostOperationOf<C> = CostOperationOf<C>>(
  options: RateQuoterOptions<C, O>,
): RateQuoter<CostInputOf<C, ChosenOperation<C, O>>> {
  return new Quoter(options as unknown as RateQuoterOptions<QuotableClient>);
}
