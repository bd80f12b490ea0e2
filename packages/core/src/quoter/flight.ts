import type { RateEntry } from "./types.js";

/** How a question to the provider ended: an answer (options, or none: not served), or a failure. */
export type FlightOutcome = { kind: "answered"; entry: RateEntry } | { kind: "failed"; error: unknown };

/**
 * One courier's question on one route, asked once however many quotes want it (they all wait on `promise`). Several
 * calls may be working on it at once (a batch and its hedge, or a call and a wait on another instance): the first
 * answer settles it; it fails only when every call working on it failed, with the last error.
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

  constructor(
    readonly key: string,
    readonly courier: string,
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

  /** A call answered; `true` when it was the first answer (the one to cache). */
  answer(entry: RateEntry): boolean {
    this.#working -= 1;
    return this.#settle({ kind: "answered", entry });
  }

  /** A call gave up without an answer, and hands over to another call (a split batch) when there is one. */
  hand(): void {
    this.#working -= 1;
  }

  /** A call failed; the question fails when no other call is still working on it. */
  fail(error: unknown): void {
    this.#working -= 1;
    if (this.#working <= 0) this.#settle({ kind: "failed", error });
  }

  #settle(outcome: FlightOutcome): boolean {
    if (this.outcome !== undefined) return false;
    this.outcome = outcome;
    this.#resolve(outcome);
    return true;
  }
}
