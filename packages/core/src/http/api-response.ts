import type { RateLimitInfo } from "./rate-limit.js";

/**
 * What every client method resolves to: the parsed `data` plus everything about the exchange.
 *
 * @example
 * const { data, rateLimit, rawBody } = await payments.listMethods();
 */
export interface ApiResponse<T> {
  /** The unwrapped, parsed payload. */
  data: T;
  /** HTTP status. */
  status: number;
  /** Response headers. */
  headers: Headers;
  /** `X-RateLimit-*` headers, when present. */
  rateLimit: RateLimitInfo | undefined;
  /** The whole parsed JSON body, envelope included, secrets redacted. */
  raw: unknown;
  /** The body text, secrets redacted. */
  rawBody: string;
  /** The provider's envelope message (`meta.message`, `message`, `status.description`). */
  message?: string;
  /** The provider's envelope code (`meta.code`, `status.code`). */
  code?: number | string;
}
