import { ConfigurationError } from "../errors/validation.js";
import { type ShippingInterface, shippingAccountOf } from "../shipping/account.js";
import { freshQuote, type Plan, plannedQuote } from "./assembly.js";
import { type BackupLookup, backupLookup } from "./backup.js";
import { CourierHealth } from "./courier-health.js";
import type { Flight } from "./flight.js";
import { MemoryRateStore, memoryRateStore } from "./memory-store.js";
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
import { inputOf, type QuoteRequest, QuoteRequestReader, type ReadQuote } from "./request.js";
import { type RouteGroup, routeGroups, routeKey } from "./routes.js";
import { frozenQuote, SharedAnswers } from "./shared-answers.js";
import { QuoterCounter, type QuoterStats } from "./stats.js";
import type { RateEntry, RateQuote, RateStore } from "./types.js";
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
  /** Fresh quotes of the memory store, shared by identical questions (see SharedAnswers). */
  readonly #answers = new SharedAnswers();

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
    const split = routeGroups(prefix, read, this.#settings.cache?.billedWeight ?? exactWeight);
    const route = split === undefined ? routeKey(prefix, read, read.weight) : undefined;
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
    const groups = routeGroups(prefix, read, this.#settings.cache?.billedWeight ?? exactWeight) ?? [
      { route: routeKey(prefix, read, read.weight), couriers: read.couriers, indexes: undefined },
    ];
    for (const group of groups) {
      this.#pricer.forget(group.route, group.couriers);
      await this.#cache?.delete(group.route, group.couriers);
    }
  }

  async invalidateAll(): Promise<void> {
    const prefix = this.#prefix ?? (await this.#account());
    this.#answers.clear();
    this.#pricer.forget();
    await this.#cache?.deletePrefix(prefix);
  }

  stats(): QuoterStats {
    return this.#counter.snapshot();
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

  // The hit path of a memory store: a quote already built for this question (see SharedAnswers).
  #sharedAnswer(read: ReadQuote): RateQuote | undefined {
    if (this.#memory === undefined || read.couriers !== this.#settings.couriers || read.extrasKey !== "") {
      return undefined;
    }
    const shared = this.#answers.find(read);
    if (shared === undefined) return undefined;
    const now = this.#clock();
    if (now - shared.oldest > (this.#settings.cache as CacheWindows).freshMs) return undefined;
    this.#counter.hit(shared.count, now);
    return shared.quote;
  }

  // Every answer fresh: the quote is built at once, with no plan or flight; with a memory store it is kept, frozen,
  // for the same question.
  #answerFresh(read: ReadQuote, route: string | undefined, entries: Entries, now: number): RateQuote {
    this.#counter.hit(entries.length, now);
    const { quote, oldest } = freshQuote(read.couriers, entries, now);
    const slot = route === undefined ? undefined : this.#memory?.slot(route);
    if (slot === undefined || read.couriers !== this.#settings.couriers || read.extrasKey !== "") return quote;
    const shared = frozenQuote(quote);
    this.#answers.keep(read, { slot, version: slot.version, oldest, count: entries.length, quote: shared });
    return shared;
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
    const { quote, backups, staleIfError } = plannedQuote(read, plans, this.#backup);
    this.#counter.fallback("backup", backups);
    this.#counter.fallback("stale_if_error", staleIfError);
    this.#counter.quote(quote.complete);
    return quote;
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
