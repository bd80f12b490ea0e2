/** Rate-limit headers of a response (`X-RateLimit-Limit`, `-Remaining`, `-Reset`). */
export interface RateLimitInfo {
  /** Requests allowed in the window. */
  limit?: number;
  /** Requests left in the window. */
  remaining?: number;
  /** When the window resets, when `X-RateLimit-Reset` could be read. */
  reset?: Date;
  /** `X-RateLimit-Reset` exactly as sent. */
  resetRaw?: string;
}

// Below this, a bare number is a delta in seconds; between the two, epoch seconds; above, epoch milliseconds.
const EPOCH_SECONDS_FLOOR = 1e9;
const EPOCH_MILLIS_FLOOR = 1e11;

/**
 * Reads a reset timestamp tolerantly: epoch seconds, epoch milliseconds, seconds from now, ISO 8601 or HTTP date.
 *
 * @example
 * parseResetTime("1767225600", Date.now()); // 2026-01-01T00:00:00.000Z
 */
export function parseResetTime(raw: string, nowMs: number): Date | undefined {
  const text = raw.trim();
  if (text === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) {
    const value = Number(text);
    if (value >= EPOCH_MILLIS_FLOOR) return new Date(value);
    if (value >= EPOCH_SECONDS_FLOOR) return new Date(value * 1000);
    return new Date(nowMs + value * 1000);
  }
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? undefined : new Date(parsed);
}

const readCount = (headers: Headers, name: string): number | undefined => {
  const value = headers.get(name)?.trim();
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Number(value);
};

/**
 * Extracts {@link RateLimitInfo} from response headers; `undefined` when none of the headers is present.
 *
 * @example
 * parseRateLimit(new Headers({ "X-RateLimit-Remaining": "9" }), Date.now()); // { remaining: 9 }
 */
export function parseRateLimit(headers: Headers, nowMs: number): RateLimitInfo | undefined {
  const info: RateLimitInfo = {};
  const limit = readCount(headers, "x-ratelimit-limit");
  const remaining = readCount(headers, "x-ratelimit-remaining");
  const resetRaw = headers.get("x-ratelimit-reset") ?? undefined;
  if (limit !== undefined) info.limit = limit;
  if (remaining !== undefined) info.remaining = remaining;
  if (resetRaw !== undefined) {
    info.resetRaw = resetRaw;
    const reset = parseResetTime(resetRaw, nowMs);
    if (reset !== undefined) info.reset = reset;
  }
  return Object.keys(info).length === 0 ? undefined : info;
}

/**
 * Reads `Retry-After` (seconds, possibly fractional, or an HTTP date) as milliseconds from now, never negative.
 *
 * @example
 * parseRetryAfter("2", Date.now()); // 2000
 */
export function parseRetryAfter(raw: string | null, nowMs: number): number | undefined {
  if (raw === null) return undefined;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
