/** How long a courier that answered slowly or failed is priced on its own before it may share a call again. */
export const SLOW_ISOLATION_MS = 5 * 60_000;

/**
 * What the quoter remembers of each courier's recent answers, on its own clock:
 * - **isolated**: one of its calls took longer than the hedge delay, or failed. For the next
 *   {@link SLOW_ISOLATION_MS} it is priced in a call of its own, so it cannot hold back or fail the couriers that
 *   share a call. A fast answer clears the mark.
 * - **cooling down**: a call failed (5xx, time-out, network, rate limit). For `cooldownMs` (or the provider's
 *   `Retry-After`, if longer) quotes do not ask it again: each such call would spend quota on an answer that is
 *   failing anyway. Quotes serve its stale price or the backup rate meanwhile. The first quote after the cooldown
 *   asks again.
 */
export class CourierHealth {
  readonly #slowUntil = new Map<string, number>();
  readonly #cooling = new Map<string, { until: number; error: unknown }>();
  readonly #cooldownMs: number;

  constructor(cooldownMs: number) {
    this.#cooldownMs = cooldownMs;
  }

  isIsolated(courier: string, now: number): boolean {
    const until = this.#slowUntil.get(courier);
    return until !== undefined && now < until;
  }

  isolate(courier: string, now: number): void {
    this.#slowUntil.set(courier, now + SLOW_ISOLATION_MS);
  }

  /** The courier answered (priced, or "not served"); `fast` when within the hedge delay. */
  answered(courier: string, fast: boolean): void {
    this.#cooling.delete(courier);
    if (fast) this.#slowUntil.delete(courier);
  }

  failed(courier: string, error: unknown, now: number): void {
    this.isolate(courier, now);
    if (this.#cooldownMs === 0) return;
    const asked = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
    const wait = typeof asked === "number" && asked > this.#cooldownMs ? asked : this.#cooldownMs;
    this.#cooling.set(courier, { until: now + wait, error });
  }

  /** The error that made the courier cool down, while it does; `undefined` once it may be asked again. */
  coolingError(courier: string, now: number): { error: unknown } | undefined {
    const cooling = this.#cooling.get(courier);
    if (cooling === undefined) return undefined;
    if (now < cooling.until) return cooling;
    this.#cooling.delete(courier);
    return undefined;
  }
}
