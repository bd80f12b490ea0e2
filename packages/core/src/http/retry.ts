import { ApiError } from "../errors/api-error.js";
import { ConnectionError, TimeoutError } from "../errors/network.js";
import { parseRetryAfter } from "./rate-limit.js";

/** First backoff ceiling; doubles per attempt. */
export const BASE_BACKOFF_MS = 500;
/** Largest backoff ceiling. */
export const MAX_BACKOFF_MS = 8_000;

/**
 * Whether a failed attempt of a READ may be sent again: network errors, timeouts, 429 and 5xx. Never consulted for
 * writes, which are not retried at all.
 *
 * @example
 * isRetryableError(new ConnectionError("refused", { method: "GET", path: "/" })); // true
 */
export function isRetryableError(error: unknown): boolean {
  if (error instanceof ConnectionError || error instanceof TimeoutError) return true;
  return error instanceof ApiError && error.retryable;
}

/**
 * Milliseconds to wait before retry number `attempt + 1`: the provider's `Retry-After` (or, for a 429 or an
 * exhausted window, `X-RateLimit-Reset`) when present; otherwise exponential backoff with full jitter,
 * `random() * min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2^attempt)`. `undefined` when the provider asks for a longer
 * wait than `maxRetryDelayMs`: then the error is thrown instead of sleeping.
 *
 * @example
 * retryDelayMs(new ConnectionError("x", { method: "GET", path: "/" }), 1, { now: 0, random: () => 0.5, maxRetryDelayMs: 60_000 }); // 500
 */
export function retryDelayMs(
  error: unknown,
  attempt: number,
  context: { now: number; random: () => number; maxRetryDelayMs: number },
): number | undefined {
  const requested = error instanceof ApiError ? requestedWaitMs(error, context.now) : undefined;
  if (requested !== undefined) return requested <= context.maxRetryDelayMs ? requested : undefined;
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** attempt);
  return Math.floor(context.random() * ceiling);
}

const requestedWaitMs = (error: ApiError, now: number): number | undefined => {
  const retryAfter = parseRetryAfter(error.headers?.get("retry-after") ?? null, now);
  if (retryAfter !== undefined) return retryAfter;
  const reset = error.rateLimit?.reset;
  const windowExhausted = error.status === 429 || error.rateLimit?.remaining === 0;
  return reset !== undefined && windowExhausted ? Math.max(0, reset.getTime() - now) : undefined;
};
