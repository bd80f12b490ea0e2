import type { Clock } from "../clock.js";

/** `rateLimit` option: requests allowed per key per fixed window on the provider's clock. */
export interface RateLimitOptions {
  /** Requests per window. Default 600. */
  limit?: number;
  /** Window length. Default 60 000 ms. */
  windowMs?: number;
}

/** The counter state after one request. */
export interface RateLimitVerdict {
  limited: boolean;
  headers: Record<string, string>;
  retryAfterSeconds: number;
}

/**
 * A fixed-window counter per API key. Every response carries `X-RateLimit-Limit`, `-Remaining` and `-Reset` (Unix
 * seconds at which the window ends); a request over the limit gets 429 with `Retry-After`.
 */
export class RateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  #clock: Clock;
  #windows = new Map<string, { start: number; count: number }>();

  constructor(clock: Clock, options: RateLimitOptions = {}) {
    this.#clock = clock;
    this.limit = options.limit ?? 600;
    this.windowMs = options.windowMs ?? 60_000;
  }

  /** Forgets every window's count. */
  clear(): void {
    this.#windows.clear();
  }

  /** Counts one request for `key` and says whether it is over the limit. */
  hit(key: string): RateLimitVerdict {
    const now = this.#clock.now();
    const start = now - (now % this.windowMs);
    const window = this.#windows.get(key);
    const current = window && window.start === start ? window : { start, count: 0 };
    current.count += 1;
    this.#windows.set(key, current);
    const resetMs = start + this.windowMs;
    const limited = current.count > this.limit;
    return {
      limited,
      retryAfterSeconds: Math.max(1, Math.ceil((resetMs - now) / 1000)),
      headers: {
        "X-RateLimit-Limit": String(this.limit),
        "X-RateLimit-Remaining": String(Math.max(0, this.limit - current.count)),
        "X-RateLimit-Reset": String(Math.ceil(resetMs / 1000)),
      },
    };
  }
}
