import type { KirimbayarTelemetry } from "../telemetry/types.js";
/** Fetch function signature the clients call; defaults to the global `fetch`. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Waits `ms` milliseconds; rejects with the signal's reason when `signal` aborts first. */
export type SleepFunction = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * Options every API client accepts. Client-specific options (Pro's `androidKey`, shipping's `cache`) extend this.
 *
 * @example
 * const options: ClientOptions = { apiKey: env.KEY, baseUrl: "https://api.example.id", timeoutMs: 10_000 };
 */
export interface ClientOptions<Operation extends string = string> {
  /** The provider API key. Trimmed; a key with whitespace inside is rejected. Never appears in errors. */
  apiKey: string;
  /** Base address of the service, e.g. `https://sandbox.example.id`. Required: the spec shows no production host. */
  baseUrl: string;
  /** Replacement for the global `fetch` (tests, proxies, instrumentation). */
  fetch?: FetchLike;
  /** Timeout of ONE attempt in milliseconds. Default 30 000. */
  timeoutMs?: number;
  /**
   * How many times a READ (lookup, search, cost, status) is retried after a network error, timeout, 429 or 5xx.
   * Default 2 (so at most 3 attempts); `0` means exactly one attempt. Writes (create, cancel, generate, upload,
   * register) are never retried, whatever this says.
   */
  maxRetries?: number;
  /** Path overrides per operation name, e.g. `{ generateQris: "/user/api/v1/qrisly/generate-qris" }`. */
  paths?: Partial<Record<Operation, string>>;
  /** Extra headers sent with every request. They cannot replace the credential headers. */
  headers?: Record<string, string>;
  /** Allow an `http:` base URL that is not localhost. Never do this in production: the key travels in clear. */
  allowInsecureHttp?: boolean;
  /** Allow construction where a global `window`/`document` exists. The key would be visible to every visitor. */
  dangerouslyAllowBrowser?: boolean;
  /** Current time in epoch milliseconds (for tests). Default `Date.now`. */
  clock?: () => number;
  /** Sleep used between retries (for tests). Default: a `setTimeout` that honours the abort signal. */
  sleep?: SleepFunction;
  /** Random number in [0, 1) used for backoff jitter (for tests). Default `Math.random`. */
  random?: () => number;
  /**
   * Longest wait a `Retry-After`/`X-RateLimit-Reset` may ask for and still be retried automatically, in ms.
   * Default 60 000; a longer wait is not slept through: the `RateLimitError` is thrown with its `retryAfterMs`.
   */
  maxRetryDelayMs?: number;
  /**
   * OpenTelemetry (`{ tracer: trace.getTracer("kirimbayar"), meter: metrics.getMeter("kirimbayar") }`): a
   * `kirimbayar.client.request` span per call (operation, method, status, attempts, error code) and
   * `kirimbayar.client.duration` (ms). Never the URL, a query or a key.
   */
  telemetry?: KirimbayarTelemetry;
}

/**
 * Per-call overrides, accepted as the last argument of every client method.
 *
 * @example
 * await client.getPaymentStatus("KPAY-1", { timeoutMs: 5_000, maxRetries: 0, signal: controller.signal });
 */
export interface RequestOptions {
  /** Aborts the call (also stops a pending retry wait). */
  signal?: AbortSignal;
  /** Timeout of one attempt for this call. */
  timeoutMs?: number;
  /** Retries for this call (reads only). */
  maxRetries?: number;
}

/** Default timeout of one attempt. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Default number of retries of a read. */
export const DEFAULT_MAX_RETRIES = 2;
/** Default cap on a provider-requested wait that is slept through automatically. */
export const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;
