import type { RateLimitInfo } from "../http/rate-limit.js";
import { KirimbayarError } from "./base.js";

/** Everything an {@link ApiError} knows about the failed exchange. Secrets are already redacted. */
export interface ApiErrorDetails {
  /** HTTP status of the response. */
  status: number;
  /** Code the provider put in the body (`meta.code`, `rajaongkir.status.code`, `error_code`), if any. */
  providerCode?: number | string | undefined;
  /** Message the provider put in the body (`meta.message`, `message`, `status.description`), if any. */
  providerMessage?: string | undefined;
  /** HTTP method of the request, e.g. `"POST"`. */
  method: string;
  /** Path of the request, without query string. */
  path: string;
  /** Operation name, e.g. `"createPayment"`. */
  operation?: string | undefined;
  /** Rate-limit headers of the response. */
  rateLimit?: RateLimitInfo | undefined;
  /** Response body as text, secrets redacted. */
  rawBody?: string | undefined;
  /** Parsed response body (JSON) with secrets redacted, or `undefined` when it was not JSON. */
  body?: unknown;
  /** Response headers. */
  headers?: Headers | undefined;
  /** Value of an `X-Request-Id`-like response header, if any. */
  requestId?: string | undefined;
  /** Whether retrying the same request may succeed. Defaults to `true` for 429 and 5xx. */
  retryable?: boolean | undefined;
  cause?: unknown;
}

/**
 * The provider answered with an error (by HTTP status or by its body). Carries the status, the provider's code and
 * message, method and path, rate-limit info and the redacted body.
 *
 * @example
 * try { await payments.getPaymentStatus("KPAY-1") } catch (e) {
 *   if (e instanceof ApiError) console.log(e.status, e.providerMessage, e.rawBody);
 * }
 */
export class ApiError extends KirimbayarError {
  /** HTTP status of the response. */
  readonly status: number;
  /** Code from the body (`meta.code`, `rajaongkir.status.code`, `error_code`), if any. */
  readonly providerCode: number | string | undefined;
  /** Message from the body, if any. */
  readonly providerMessage: string | undefined;
  /** HTTP method of the request. */
  readonly method: string;
  /** Request path without query string. */
  readonly path: string;
  /** Operation name, e.g. `"createPayment"`. */
  readonly operation: string | undefined;
  /** Rate-limit headers of the response. */
  readonly rateLimit: RateLimitInfo | undefined;
  /** Response body as text, secrets redacted. */
  readonly rawBody: string | undefined;
  /** Parsed JSON body with secrets redacted. */
  readonly body: unknown;
  /** Response headers. */
  readonly headers: Headers | undefined;
  /** Provider request id, when a response header carried one. */
  readonly requestId: string | undefined;
  /** Whether the same request may succeed if sent again. */
  readonly retryable: boolean;

  constructor(message: string, details: ApiErrorDetails, code = "api_error") {
    super(message, { code, cause: details.cause });
    this.status = details.status;
    this.providerCode = details.providerCode;
    this.providerMessage = details.providerMessage;
    this.method = details.method;
    this.path = details.path;
    this.operation = details.operation;
    this.rateLimit = details.rateLimit;
    this.rawBody = details.rawBody;
    this.body = details.body;
    this.headers = details.headers;
    this.requestId = details.requestId;
    this.retryable = details.retryable ?? (details.status === 429 || details.status >= 500);
  }

  /** Plain JSON view for logs (no headers object, no secrets). */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      status: this.status,
      providerCode: this.providerCode,
      providerMessage: this.providerMessage,
      method: this.method,
      path: this.path,
      operation: this.operation,
      rateLimit: this.rateLimit,
      requestId: this.requestId,
      retryable: this.retryable,
      rawBody: this.rawBody,
    };
  }
}

/**
 * The provider rejected the credentials. `credential` names WHERE the key travels (e.g. `header X-API-Key`),
 * never its value.
 *
 * @example
 * catch (e) { if (e instanceof AuthenticationError) alert(`check the key sent in ${e.credential}`) }
 */
export class AuthenticationError extends ApiError {
  /** Where the rejected key was sent, e.g. `"header X-API-Key"` or `"form field key"`. */
  readonly credential: string;

  constructor(message: string, details: ApiErrorDetails & { credential: string }) {
    super(message, { ...details, retryable: false }, "authentication");
    this.credential = details.credential;
  }
}

/**
 * Too many requests (HTTP 429). `retryAfterMs` says how long to wait, from `Retry-After` or `X-RateLimit-Reset`.
 *
 * @example
 * catch (e) { if (e instanceof RateLimitError) await sleep(e.retryAfterMs ?? 1000) }
 */
export class RateLimitError extends ApiError {
  /** Milliseconds to wait before trying again, when the provider said so. */
  readonly retryAfterMs: number | undefined;
  /** `X-RateLimit-Limit`. */
  readonly limit: number | undefined;
  /** `X-RateLimit-Remaining`. */
  readonly remaining: number | undefined;
  /** `X-RateLimit-Reset` as a date. */
  readonly reset: Date | undefined;

  constructor(message: string, details: ApiErrorDetails & { retryAfterMs?: number | undefined }) {
    super(message, { ...details, retryable: details.retryable ?? true }, "rate_limited");
    this.retryAfterMs = details.retryAfterMs;
    this.limit = details.rateLimit?.limit;
    this.remaining = details.rateLimit?.remaining;
    this.reset = details.rateLimit?.reset;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), retryAfterMs: this.retryAfterMs };
  }
}

/**
 * The requested resource does not exist (HTTP 404 or a body code 404).
 *
 * @example
 * catch (e) { if (e instanceof NotFoundError) return null }
 */
export class NotFoundError extends ApiError {
  constructor(message: string, details: ApiErrorDetails, code = "not_found") {
    super(message, { ...details, retryable: false }, code);
  }
}

/**
 * No courier serves this route ("Calculate ... not found"). Permanent: never retried.
 *
 * @example
 * catch (e) { if (e instanceof NoCourierServiceError) showMessage("No courier delivers there") }
 */
export class NoCourierServiceError extends NotFoundError {
  constructor(message: string, details: ApiErrorDetails) {
    super(message, details, "no_courier_service");
  }
}

/**
 * The provider does not know the courier code that was sent ("Invalid Courier").
 *
 * @example
 * catch (e) { if (e instanceof InvalidCourierError) console.log(e.providerMessage) }
 */
export class InvalidCourierError extends ApiError {
  constructor(message: string, details: ApiErrorDetails) {
    super(message, { ...details, retryable: false }, "invalid_courier");
  }
}

/**
 * The provider says a required parameter is missing ("Parameter Missing", "Missing Params").
 *
 * @example
 * catch (e) { if (e instanceof MissingParameterError) console.log(e.providerMessage) }
 */
export class MissingParameterError extends ApiError {
  constructor(message: string, details: ApiErrorDetails) {
    super(message, { ...details, retryable: false }, "missing_parameter");
  }
}
