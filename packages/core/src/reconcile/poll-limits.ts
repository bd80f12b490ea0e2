/**
 * The provider's polling limits, kept per reconciler: at most one status request per id every `minIntervalMs`
 * (the gateway allows one per 3 s per payment), and a pause for everyone after a 429 until its `Retry-After`.
 */
export class PollLimits {
  readonly #lastAskedAt = new Map<string, number>();
  readonly #minIntervalMs: number;
  readonly #now: () => number;
  #pausedUntil = 0;

  constructor(minIntervalMs: number, now: () => number) {
    this.#minIntervalMs = minIntervalMs;
    this.#now = now;
  }

  /** Why `id` may not be asked now, or `undefined` when it may (and the request is then counted). */
  take(id: string): string | undefined {
    const now = this.#now();
    if (now < this.#pausedUntil)
      return `the provider asked to wait (429) until ${new Date(this.#pausedUntil).toISOString()}`;
    if (this.#minIntervalMs <= 0) return undefined; // no per-id limit: nothing to remember
    const last = this.#lastAskedAt.get(id);
    if (last !== undefined && now - last < this.#minIntervalMs) {
      return `asked less than ${this.#minIntervalMs} ms ago (the provider's polling limit)`;
    }
    this.#lastAskedAt.set(id, now);
    // Forget ids that are long past their interval, so the map holds only recent ones.
    if (this.#lastAskedAt.size > 10_000) {
      for (const [known, at] of this.#lastAskedAt) if (now - at >= this.#minIntervalMs) this.#lastAskedAt.delete(known);
    }
    return undefined;
  }

  /** A 429 came back: nobody asks again before `retryAfterMs` (default one interval) has passed. */
  pause(retryAfterMs: number | undefined): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, this.#now() + (retryAfterMs ?? this.#minIntervalMs));
  }
}
