import { ConfigurationError } from "../errors/validation.js";
import { type ShippingInterface, shippingAccountOf } from "../shipping/account.js";
import { type BackupLookup, backupLookup } from "./backup.js";
import { CourierHealth } from "./courier-health.js";
import type { Flight } from "./flight.js";
import { MemoryRateStore, memoryRateStore, type RouteSlot } from "./memory-store.js";
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
import { idText, inputOf, type QuoteRequest, QuoteRequestReader, type ReadQuote } from "./request.js";
import { QuoterCounter, type QuoterStats } from "./stats.js";
import type { CourierRates, MissingCourier, RateEntry, RateQuote, RateStore } from "./types.js";
import { exactWeight } from "./weight.js";
import { type CacheWindows, freshnessOf } from "./windows.js";

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

/** The code of each interface and cost operation in route keys. */
const OPERATION_CODES: Readonly<Record<string, string>> = {
  "current calculateDomesticCost": "cd",
  "current calculateDistrictDomesticCost": "cdd",
  "current calculateInternationalCost": "ci",
  "pro calculateCost": "pc",
  "pro calculateInternationalCost": "pi",
  "starter calculateCost": "sc",
};

const NO_ENTRIES: Entries = [];
/** Shared fresh quotes kept (one per route); the map is emptied when full, which only costs the next hits a build. */
const SHARED_ANSWERS_KEPT = 1_000;

/** A fresh quote kept for the same question: valid while its route's slot and version are unchanged. */
interface SharedAnswer {
  slot: Readonly<RouteSlot>;
  version: number;
  /** The oldest answer's fetch time: the quote is fresh while this one is. */
  oldest: number;
  /** Couriers it answers (for the stats). */
  count: number;
  quote: RateQuote;
}
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

/** The couriers of a quote that share one route key (all of them, unless the billed weight tells them apart). */
interface RouteGroup {
  route: string;
  couriers: readonly string[];
  /** Their positions in the quote; `undefined` when the group is the whole quote. */
  indexes: readonly number[] | undefined;
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
  /** The store answers synchronously (the memory store). */
  readonly #syncStore: boolean;
  /** The quoter's memory store, when it has one (not a shared store): its hit path takes a shortcut. */
  readonly #memory: MemoryRateStore | undefined;
  /** The last quote answered wholly from fresh entries of the memory store, by origin, destination, weight. */
  readonly #answers = new Map<string | number, Map<string | number, Map<number, SharedAnswer>>>();
  #answersKept = 0;

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
    this.#syncStore = cache?.store === undefined || cache.store instanceof MemoryRateStore;
    const store = cache === undefined ? undefined : (cache.store ?? memoryRateStore());
    this.#memory = store instanceof MemoryRateStore ? store : undefined;
    this.#cache =
      cache === undefined
        ? undefined
        : new RateCache(store as RateStore, {
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
    // Short: a key is hashed on every lookup. 64 bits of the account's digest tell accounts apart; the interface
    // and operation are one code each.
    const suffix = `${label === undefined ? "" : `+${label.trim()}`} ${OPERATION_CODES[`${kind} ${operation.name}`]} `;
    this.#account = async () => {
      const fingerprint = tag === undefined ? "custom" : (await tag.fingerprint()).slice(0, 16);
      this.#prefix = `${fingerprint}${suffix}`;
      return this.#prefix;
    };
  }

  async quote(request: QuoteRequest<I>): Promise<RateQuote> {
    // The budget runs from the call; with a memory store (answering at once) the clock is read only if the quote
    // has to wait, which spares a cache hit the cost of reading it.
    let startedAt = this.#syncStore ? undefined : performance.now();
    const read = this.#reader.read(request);
    const prefix = this.#prefix ?? (await this.#account());
    const shared = this.#sharedAnswer(read);
    if (shared !== undefined) return shared;
    const split = this.#routes(prefix, read);
    const route = split === undefined ? this.#route(prefix, read, read.weight) : undefined;
    const found = route === undefined ? this.#readRoutes(split ?? []) : this.#readRoute(route, read.couriers);
    // No await for a memory store's synchronous answer: a cache hit costs no turn of the event loop.
    const entries = isPromise<Entries>(found) ? await found : found;
    const fresh = this.#allFresh(entries);
    if (fresh !== undefined) return this.#answerFresh(read, route, entries, fresh);
    startedAt ??= performance.now();
    const groups = split ?? [{ route: route as string, couriers: read.couriers, indexes: undefined }];
    const plans = this.#plan(read, groups, entries);
    const flights: Flight[] = [];
    for (const plan of plans) if (plan.flight !== undefined) flights.push(plan.flight);
    const waiting = waitFor(flights, read.budgetMs - (performance.now() - startedAt));
    if (waiting !== undefined) await waiting;
    return this.#answer(read, plans);
  }

  async invalidate(request: QuoteRequest<I>): Promise<void> {
    const read = this.#reader.read(request);
    const prefix = this.#prefix ?? (await this.#account());
    const groups = this.#routes(prefix, read) ?? [
      { route: this.#route(prefix, read, read.weight), couriers: read.couriers, indexes: undefined },
    ];
    for (const group of groups) {
      this.#pricer.forget(group.route, group.couriers);
      await this.#cache?.delete(group.route, group.couriers);
    }
  }

  async invalidateAll(): Promise<void> {
    const prefix = this.#prefix ?? (await this.#account());
    this.#answers.clear();
    this.#answersKept = 0;
    this.#pricer.forget();
    await this.#cache?.deletePrefix(prefix);
  }

  stats(): QuoterStats {
    return this.#counter.snapshot();
  }

  // A route key: account and operation (the prefix), origin, destination, other input fields, billed weight.
  // Origin and destination never hold whitespace, so the fields cannot run into each other.
  #route(prefix: string, read: ReadQuote, weight: number): string {
    return `${prefix}${idText(read.origin)} ${idText(read.destination)} ${read.extrasKey} ${weight}`;
  }

  /**
   * The couriers grouped by route key: `undefined` when every courier shares the quote's own weight (the default
   * rule, and the hit path: nothing allocated), else one group per billed weight.
   */
  #routes(prefix: string, read: ReadQuote): readonly RouteGroup[] | undefined {
    const billed = this.#settings.cache?.billedWeight ?? exactWeight;
    if (billed === exactWeight) return undefined;
    const groups = new Map<string, RouteGroup & { couriers: string[]; indexes: number[] }>();
    read.couriers.forEach((courier, index) => {
      const weight = billed(read.weight, courier);
      if (typeof weight !== "number" || !Number.isFinite(weight) || weight <= 0) {
        throw new ConfigurationError("cache.billedWeight", "cache.billedWeight must return a positive number of grams");
      }
      const route = this.#route(prefix, read, weight);
      let group = groups.get(route);
      if (group === undefined) {
        group = { route, couriers: [], indexes: [] };
        groups.set(route, group);
      }
      group.couriers.push(courier);
      group.indexes.push(index);
    });
    return [...groups.values()];
  }

  #readRoute(route: string, couriers: readonly string[]): Entries | Promise<Entries> {
    return this.#cache === undefined ? NO_ENTRIES : this.#cache.read(route, couriers);
  }

  // Several routes (couriers billed at different weights): read together, answers put back in the quote's order.
  async #readRoutes(groups: readonly RouteGroup[]): Promise<Entries> {
    const read = await Promise.all(groups.map((group) => this.#readRoute(group.route, group.couriers)));
    const entries: (RateEntry | undefined)[] = [];
    groups.forEach((group, g) => {
      group.indexes?.forEach((index, i) => {
        entries[index] = read[g]?.[i];
      });
    });
    return entries;
  }

  // The hit path: when every courier's answer is fresh, the quote is assembled at once, with no plan or flight.
  #allFresh(entries: Entries): number | undefined {
    const windows = this.#settings.cache;
    if (windows === undefined || entries.length === 0) return undefined;
    const now = this.#clock();
    for (const entry of entries) {
      if (entry === undefined || now - entry.fetchedAt > windows.freshMs) return undefined;
    }
    return now;
  }

  /**
   * The hit path of a memory store: the quote last built for the same question (the quoter's couriers, no other
   * field), looked up by origin, destination and weight themselves (no key to build), while its route holds the same
   * answers (the slot's version has not moved: no write, delete or eviction since) and every one is still fresh.
   */
  #sharedAnswer(read: ReadQuote): RateQuote | undefined {
    if (read.couriers !== this.#settings.couriers || read.extrasKey !== "") return undefined;
    const memo = this.#answers.get(read.origin)?.get(read.destination)?.get(read.weight);
    if (memo === undefined || memo.slot.version !== memo.version) return undefined;
    const now = this.#clock();
    if (now - memo.oldest > (this.#settings.cache as CacheWindows).freshMs) return undefined;
    this.#counter.hit(memo.count, now);
    return memo.quote;
  }

  // A fresh hit: built once and frozen; with a memory store, kept for the same question (see #sharedAnswer).
  #answerFresh(read: ReadQuote, route: string | undefined, entries: Entries, now: number): RateQuote {
    this.#counter.hit(entries.length, now);
    const rates: CourierRates[] = [];
    const missing: MissingCourier[] = [];
    let oldest = now;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i] as RateEntry;
      const courier = read.couriers[i] as string;
      if (entry.fetchedAt < oldest) oldest = entry.fetchedAt;
      if (entry.options.length === 0) {
        missing.push({ courier, reason: "not_served", fetchedAt: entry.fetchedAt });
      } else {
        rates.push({ courier, options: entry.options, source: "cache", fetchedAt: entry.fetchedAt, stale: false });
      }
    }
    const quote: RateQuote = { rates, missing, complete: true };
    const slot = route === undefined ? undefined : this.#memory?.slot(route);
    if (slot !== undefined && read.couriers === this.#settings.couriers && read.extrasKey === "") {
      // Shared from now on: frozen, so no caller can change what the next one gets.
      for (const courierRates of rates) Object.freeze(courierRates);
      for (const absent of missing) Object.freeze(absent);
      Object.freeze(rates);
      Object.freeze(missing);
      this.#keep(read, { slot, version: slot.version, oldest, count: entries.length, quote: Object.freeze(quote) });
    }
    return quote;
  }

  #keep(read: ReadQuote, answer: SharedAnswer): void {
    if (this.#answersKept >= SHARED_ANSWERS_KEPT) {
      this.#answers.clear();
      this.#answersKept = 0;
    }
    let byDestination = this.#answers.get(read.origin);
    if (byDestination === undefined) {
      byDestination = new Map();
      this.#answers.set(read.origin, byDestination);
    }
    let byWeight = byDestination.get(read.destination);
    if (byWeight === undefined) {
      byWeight = new Map();
      byDestination.set(read.destination, byWeight);
    }
    if (!byWeight.has(read.weight)) this.#answersKept += 1;
    byWeight.set(read.weight, answer);
  }

  #plan(read: ReadQuote, groups: readonly RouteGroup[], entries: Entries): Plan[] {
    const windows = this.#settings.cache;
    const now = this.#clock();
    const plans = new Array<Plan>(entries.length > 0 ? entries.length : read.couriers.length);
    let hits = 0;
    const ask: number[] = [];
    const refresh: number[] = [];
    for (let i = 0; i < plans.length; i++) {
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
    if (refresh.length > 0) this.#ask(read, groups, entries, refresh);
    if (ask.length > 0) {
      const flights = this.#ask(read, groups, entries, ask);
      ask.forEach((index, n) => {
        (plans[index] as Plan).flight = flights[n];
      });
    }
    return plans;
  }

  // Asks for the couriers at `indexes`, route by route; the flights come back in the order of `indexes`.
  #ask(read: ReadQuote, groups: readonly RouteGroup[], entries: Entries, indexes: readonly number[]): Flight[] {
    const input = inputOf(read);
    const batchable = this.#operation.batchable(read.extras);
    const flightOf = new Map<number, Flight>();
    for (const group of groups) {
      const mine = indexes.filter((index) => group.indexes === undefined || group.indexes.includes(index));
      if (mine.length === 0) continue;
      const { flights, joined } = this.#pricer.ask({
        input,
        batchable,
        route: group.route,
        couriers: mine.map((i) => read.couriers[i] as string),
        seen: mine.map((i) => entries[i]?.fetchedAt),
      });
      this.#counter.saved("coalesced", joined);
      mine.forEach((index, n) => {
        flightOf.set(index, flights[n] as Flight);
      });
    }
    return indexes.map((index) => flightOf.get(index) as Flight);
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
          missing.push({ courier, reason: "not_served", fetchedAt: answered.fetchedAt });
        } else {
          rates.push({
            courier,
            options: answered.options,
            source: plan.serve ? "cache" : "provider",
            fetchedAt: answered.fetchedAt,
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
          missing.push({ courier, reason: "not_served", fetchedAt: plan.fallback.fetchedAt });
        } else {
          rates.push({
            courier,
            options: plan.fallback.options,
            source: "cache",
            fetchedAt: plan.fallback.fetchedAt,
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
