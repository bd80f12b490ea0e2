import type { CounterLike, KirimbayarTelemetry } from "../telemetry/types.js";

/**
 * What a quoter counted. Provider calls are HTTP calls (a call pricing several couriers counts once); the other
 * figures count courier answers.
 */
export interface QuoterCounts {
  /** Quotes answered. */
  quotes: number;
  /** Calls sent to the provider: what the account's allowance pays for. */
  providerCalls: number;
  /** Courier answers (priced or not served) the provider's calls brought. */
  pricesFetched: number;
  /** Courier answers served from the cache instead of a call (fresh, or stale while being refreshed). */
  savedByCache: number;
  /**
   * Courier answers that waited on a call another quote had already started (in this process or, with a shared
   * store, in another instance) instead of making their own.
   */
  savedByCoalescing: number;
  /** Calls started because a multi-courier call was late (the hedge): the price of never waiting on one courier. */
  hedgeCalls: number;
  /** Couriers answered with the shop's backup rate. */
  backupRates: number;
  /** Couriers served a stale price because the provider failed or was late (stale-if-error). */
  staleIfError: number;
}

/**
 * A quoter's counts since it was built: in total, per operation, and per day (Western Indonesia Time, the day an
 * Indonesian provider's daily allowance counts by; the last 31 days are kept).
 *
 * @example
 * const { byDay } = quoter.stats();
 * console.log(byDay["2026-01-15"]?.calculateDomesticCost?.providerCalls);
 */
export interface QuoterStats {
  total: QuoterCounts;
  byOperation: Record<string, QuoterCounts>;
  byDay: Record<string, Record<string, QuoterCounts>>;
}

/** A day starts at 00:00 WIB (UTC+7), not at midnight UTC. */
const WIB_OFFSET_MS = 7 * 60 * 60_000;
const DAY_MS = 24 * 60 * 60_000;
const DAYS_KEPT = 31;

const emptyCounts = (): QuoterCounts => ({
  quotes: 0,
  providerCalls: 0,
  pricesFetched: 0,
  savedByCache: 0,
  savedByCoalescing: 0,
  hedgeCalls: 0,
  backupRates: 0,
  staleIfError: 0,
});

type CountName = keyof QuoterCounts;

/**
 * Counts a quoter's work on its clock, and reports the same through OpenTelemetry when given a meter:
 * `kirimbayar.quoter.provider_calls` (operation), `kirimbayar.quoter.saved` (operation, `kirimbayar.reason`:
 * `cache_hit` or `coalesced`), `kirimbayar.quoter.quotes` (operation, `kirimbayar.complete`) and
 * `kirimbayar.quoter.fallbacks` (operation, `kirimbayar.kind`: `backup`, `stale_if_error`).
 */
export class QuoterCounter {
  readonly #operation: string;
  readonly #clock: () => number;
  readonly #total = emptyCounts();
  readonly #byDay = new Map<string, QuoterCounts>();
  #today: QuoterCounts = emptyCounts();
  #dayStartsAt = Number.POSITIVE_INFINITY;
  #dayEndsAt = Number.NEGATIVE_INFINITY;
  readonly #calls: CounterLike | undefined;
  readonly #saved: CounterLike | undefined;
  readonly #quotes: CounterLike | undefined;
  readonly #fallbacks: CounterLike | undefined;

  constructor(operation: string, clock: () => number, telemetry: KirimbayarTelemetry | undefined) {
    this.#operation = operation;
    this.#clock = clock;
    const meter = telemetry?.meter;
    this.#calls = meter?.createCounter("kirimbayar.quoter.provider_calls", {
      description: "Calls the rate quoter sent to the shipping provider",
    });
    this.#saved = meter?.createCounter("kirimbayar.quoter.saved", {
      description: "Courier prices the rate quoter answered without a call of its own (cache hit, coalesced)",
    });
    this.#quotes = meter?.createCounter("kirimbayar.quoter.quotes", { description: "Quotes answered" });
    this.#fallbacks = meter?.createCounter("kirimbayar.quoter.fallbacks", {
      description: "Couriers answered with a backup rate or a stale price because the provider failed or was late",
    });
  }

  /** A quote answered wholly from fresh cached answers (`count` couriers), counted in one go on the hit path. */
  hit(count: number, now: number): void {
    this.#total.quotes += 1;
    this.#total.savedByCache += count;
    if (now >= this.#dayEndsAt || now < this.#dayStartsAt) this.#rollDay(now);
    this.#today.quotes += 1;
    this.#today.savedByCache += count;
    this.#saved?.add(count, { "kirimbayar.operation": this.#operation, "kirimbayar.reason": "cache_hit" });
    this.#quotes?.add(1, { "kirimbayar.operation": this.#operation, "kirimbayar.complete": true });
  }

  quote(complete: boolean): void {
    this.#add("quotes", 1);
    this.#quotes?.add(1, { "kirimbayar.operation": this.#operation, "kirimbayar.complete": complete });
  }

  call(hedge = false): void {
    this.#add("providerCalls", 1);
    if (hedge) this.#add("hedgeCalls", 1);
    this.#calls?.add(1, { "kirimbayar.operation": this.#operation });
  }

  fetched(): void {
    this.#add("pricesFetched", 1);
  }

  saved(reason: "cache_hit" | "coalesced", count: number): void {
    if (count === 0) return;
    this.#add(reason === "cache_hit" ? "savedByCache" : "savedByCoalescing", count);
    this.#saved?.add(count, { "kirimbayar.operation": this.#operation, "kirimbayar.reason": reason });
  }

  fallback(kind: "backup" | "stale_if_error", count: number): void {
    if (count === 0) return;
    this.#add(kind === "backup" ? "backupRates" : "staleIfError", count);
    this.#fallbacks?.add(count, { "kirimbayar.operation": this.#operation, "kirimbayar.kind": kind });
  }

  snapshot(): QuoterStats {
    const byDay: Record<string, Record<string, QuoterCounts>> = {};
    for (const [day, counts] of this.#byDay) byDay[day] = { [this.#operation]: { ...counts } };
    return { total: { ...this.#total }, byOperation: { [this.#operation]: { ...this.#total } }, byDay };
  }

  #add(name: CountName, count: number): void {
    this.#total[name] += count;
    // The day's counts object is looked up only when the clock crosses midnight WIB, not on every count.
    const now = this.#clock();
    if (now >= this.#dayEndsAt || now < this.#dayStartsAt) this.#rollDay(now);
    this.#today[name] += count;
  }

  #rollDay(now: number): void {
    const local = now + WIB_OFFSET_MS;
    const start = local - (((local % DAY_MS) + DAY_MS) % DAY_MS);
    this.#dayStartsAt = start - WIB_OFFSET_MS;
    this.#dayEndsAt = this.#dayStartsAt + DAY_MS;
    const day = new Date(start).toISOString().slice(0, 10);
    let today = this.#byDay.get(day);
    if (today === undefined) {
      today = emptyCounts();
      this.#byDay.set(day, today);
      // Map order is insertion order: the oldest day goes first.
      while (this.#byDay.size > DAYS_KEPT) this.#byDay.delete(this.#byDay.keys().next().value as string);
    }
    this.#today = today;
  }
}
