import type { RateEntry } from "./types.js";

/** How a question to the provider ended: an answer (options, or none: not served), or a failure. */
export type FlightOutcome = { kind: "answered"; entry: RateEntry } | { kind: "failed"; error: unknown };

/**
 * One courier's question on one route, asked once however many quotes want it (they all wait on `promise`). Several
 * calls may be working on it at once (a batch and its hedge, or a call and a wait on another instance): the first
 * answer settles it. It fails when the courier's own call failed, or when every call working on it failed; an answer
 * that arrives after that is still worth caching (see {@link Flight.answer}).
 */
export class Flight {
  readonly promise: Promise<FlightOutcome>;
  outcome: FlightOutcome | undefined;
  /** Set when an invalidation happened while it was asked: its answer is served but not cached. */
  forgotten = false;
  /** Set when this instance holds the shared store's lock for it. */
  locked = false;
  #resolve!: (outcome: FlightOutcome) => void;
  #working = 0;
  #lateAnswer = false;

  constructor(
    /** The route key (everything the price depends on but the courier). */
    readonly route: string,
    readonly courier: string,
    /** Where the flight is tracked: route and courier. */
    readonly key: string,
  ) {
    this.promise = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  get settled(): boolean {
    return this.outcome !== undefined;
  }

  /** A call starts working on this question. */
  begin(): void {
    this.#working += 1;
  }

  /**
   * A call answered; `true` when this answer is the one to cache: the first answer, even if the question had already
   * failed (a shared call answering after the courier's own call failed: the next quote gets it).
   */
  answer(entry: RateEntry): boolean {
    this.#working -= 1;
    if (this.#settle({ kind: "answered", entry })) return true;
    if (this.outcome?.kind !== "failed" || this.#lateAnswer) return false;
    this.#lateAnswer = true;
    return true;
  }

  /** A call gave up without an answer, and hands over to another call (a split batch) when there is one. */
  hand(): void {
    this.#working -= 1;
  }

  /**
   * A call failed. The question fails at once when it was the courier's own call (`own`), otherwise only when no
   * other call is still working on it.
   */
  fail(error: unknown, own = false): void {
    this.#working -= 1;
    if (own || this.#working <= 0) this.#settle({ kind: "failed", error });
  }

  #settle(outcome: FlightOutcome): boolean {
    if (this.outcome !== undefined) return false;
    this.outcome = outcome;
    this.#resolve(outcome);
    return true;
  }
}
