import {
  ApiError,
  type ApiErrorDetails,
  AuthenticationError,
  NotFoundError,
  RateLimitError,
} from "../errors/api-error.js";
import type { BodyOutcome } from "./envelope.js";
import type { RateLimitInfo } from "./rate-limit.js";
import { parseRetryAfter } from "./rate-limit.js";

/** Everything known about a failed response, handed to the factory and to an operation's `mapError` hook. */
export interface ErrorContext {
  /** HTTP status. */
  status: number;
  /** Body code if it is an HTTP-like number >= 400, otherwise the HTTP status (or 400 when both say 2xx). */
  effectiveStatus: number;
  /** What the body says (`meta`, `rajaongkir.status`, `success`, `error_code`). */
  outcome: BodyOutcome;
  method: string;
  path: string;
  operation: string;
  /** Where the credentials travel, e.g. `"header X-API-Key"`; never their values. */
  credential: string;
  headers: Headers;
  rateLimit: RateLimitInfo | undefined;
  /** Redacted body text. */
  rawBody: string;
  /** Redacted parsed body, `undefined` when not JSON. */
  body: unknown;
  /** Current time in epoch ms (from the client's clock). */
  now: number;
}

/**
 * Hook an operation uses to turn specific provider answers into dedicated errors. Return `undefined` to fall back
 * to the generic mapping. `details` is ready to pass to any {@link ApiError} subclass constructor.
 *
 * @example
 * const mapError: ErrorMapper = (ctx, details) =>
 *   ctx.effectiveStatus === 422 && messageIncludes(ctx.outcome.message, "invalid courier")
 *     ? new InvalidCourierError(defaultErrorMessage(ctx), details) : undefined;
 */
export type ErrorMapper = (context: ErrorContext, details: ApiErrorDetails) => ApiError | undefined;

/**
 * Case-insensitive substring test for provider messages (their capitalisation changes between revisions).
 *
 * @example
 * messageIncludes("Calculate Domestic Shipping Cost Not Found", "not found"); // true
 */
export function messageIncludes(message: string | undefined, needle: string): boolean {
  return message?.toLowerCase().includes(needle.toLowerCase()) === true;
}

// An invalid key does not always come back as 401: recognise it from the message too (English and Indonesian).
const AUTH_MESSAGE =
  /unauthori[sz]ed|unauthenticated|forbidden|invalid (api[ _-]?)?key|(api[ _-]?)?key (is )?(invalid|not valid|tidak valid|salah|expired|required|missing|not found)|key tidak (valid|ditemukan|terdaftar)/i;

const REQUEST_ID_HEADERS = ["x-request-id", "x-correlation-id", "request-id", "cf-ray"];

/**
 * The status that decides the error class: a numeric body code >= 400 wins (it is more specific), then the HTTP
 * status, then 400 for a body that only says `success: false`.
 *
 * @example
 * effectiveStatusOf(200, { failed: true, code: 422 }); // 422
 */
export function effectiveStatusOf(status: number, outcome: BodyOutcome): number {
  const bodyCode = Number(outcome.code);
  if (Number.isInteger(bodyCode) && bodyCode >= 400 && bodyCode <= 599) return bodyCode;
  return Math.max(status, 400);
}

/**
 * The generic message of a failed call: method, path, status, provider code and message. Never contains secrets
 * (the provider message comes from the redacted body).
 *
 * @example
 * defaultErrorMessage(ctx); // "GET /api/v1/destination/city/9 failed with HTTP 404 (code 404): Data not found"
 */
export function defaultErrorMessage(context: ErrorContext): string {
  const code =
    context.outcome.code !== undefined && String(context.outcome.code) !== String(context.status)
      ? ` (code ${context.outcome.code})`
      : "";
  const text = context.outcome.message ?? (context.status >= 400 ? "no message from the provider" : "error in body");
  return `${context.method} ${context.path} failed with HTTP ${context.status}${code}: ${text}`;
}

/**
 * Builds the right {@link ApiError} subclass from a failed response: the operation's `mapError` first, then
 * 401/403 or an auth-like message → {@link AuthenticationError}, 429 → {@link RateLimitError},
 * 404 → {@link NotFoundError}, anything else → {@link ApiError}.
 *
 * @example
 * throw createApiError(context);
 */
export function createApiError(context: ErrorContext, mapError?: ErrorMapper): ApiError {
  const details: ApiErrorDetails = {
    status: context.status,
    providerCode: context.outcome.code,
    providerMessage: context.outcome.message,
    method: context.method,
    path: context.path,
    operation: context.operation,
    rateLimit: context.rateLimit,
    rawBody: context.rawBody,
    body: context.body,
    headers: context.headers,
    requestId: REQUEST_ID_HEADERS.map((name) => context.headers.get(name)).find((v) => v !== null) ?? undefined,
    retryable: context.effectiveStatus === 429 || context.effectiveStatus >= 500,
  };
  const mapped = mapError?.(context, details);
  if (mapped !== undefined) return mapped;
  const status = context.effectiveStatus;
  const message = defaultErrorMessage(context);
  if (status === 401 || status === 403 || AUTH_MESSAGE.test(context.outcome.message ?? "")) {
    return new AuthenticationError(
      `The provider rejected the API key sent in ${context.credential} (check that it is active and was copied ` +
        `without extra characters). ${message}`,
      { ...details, credential: context.credential },
    );
  }
  if (status === 429) {
    const retryAfterMs =
      parseRetryAfter(context.headers.get("retry-after"), context.now) ??
      (context.rateLimit?.reset === undefined
        ? undefined
        : Math.max(0, context.rateLimit.reset.getTime() - context.now));
    return new RateLimitError(message, { ...details, retryAfterMs });
  }
  if (status === 404) return new NotFoundError(message, details);
  return new ApiError(message, details);
}
