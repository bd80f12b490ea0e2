import type { RouteSlot } from "./memory-store.js";
import type { ReadQuote } from "./request.js";
import type { RateQuote } from "./types.js";

/** A fresh quote kept for the same question: valid while its route's slot and version are unchanged. */
export interface SharedAnswer {
  slot: Readonly<RouteSlot>;
  version: number;
  /** The oldest answer's fetch time: the quote is fresh while this one is. */
  oldest: number;
  /** Couriers it answers (for the stats). */
  count: number;
  quote: RateQuote;
}

/** Shared quotes kept; the table is emptied when full, which only costs the next hits a build each. */
const KEPT = 1_000;

/**
 * The hit path of a memory store: the quote last built for a question of the quoter's own couriers (no other input
 * field), found by origin, destination and weight themselves (no key to build, no string to hash), and handed out
 * again while its route holds the same answers (the store moves a route's version on every write, delete and
 * eviction) and the oldest of them is fresh. Such a quote is frozen: everyone who asks gets the same object.
 *
 * @example
 * const shared = answers.find(read);
 * if (shared !== undefined && now - shared.oldest <= freshMs) return shared.quote;
 */
export class SharedAnswers {
  readonly #byOrigin = new Map<string | number, Map<string | number, Map<number, SharedAnswer>>>();
  #kept = 0;

  /** The kept quote of this question while its route is unchanged (the caller checks `oldest` is still fresh). */
  find(read: ReadQuote): SharedAnswer | undefined {
    const kept = this.#byOrigin.get(read.origin)?.get(read.destination)?.get(read.weight);
    return kept === undefined || kept.slot.version !== kept.version ? undefined : kept;
  }

  /** Keeps `answer` (its quote frozen by the caller) for the question of `read`. */
  keep(read: ReadQuote, answer: SharedAnswer): void {
    if (this.#kept >= KEPT) this.clear();
    let byDestination = this.#byOrigin.get(read.origin);
    if (byDestination === undefined) {
      byDestination = new Map();
      this.#byOrigin.set(read.origin, byDestination);
    }
    let byWeight = byDestination.get(read.destination);
    if (byWeight === undefined) {
      byWeight = new Map();
      byDestination.set(read.destination, byWeight);
    }
    if (!byWeight.has(read.weight)) this.#kept += 1;
    byWeight.set(read.weight, answer);
  }

  clear(): void {
    this.#byOrigin.clear();
    this.#kept = 0;
  }
}

/**
 * Freezes a quote and everything in it but the options (frozen when they were cached): it is about to be shared.
 *
 * @example
 * answers.keep(read, { ..., quote: frozenQuote(quote) });
 */
export function frozenQuote(quote: RateQuote): RateQuote {
  for (const rates of quote.rates) Object.freeze(rates);
  for (const absent of quote.missing) Object.freeze(absent);
  Object.freeze(quote.rates);
  Object.freeze(quote.missing);
  return Object.freeze(quote);
}
