import { KirimbayarError } from "../errors/base.js";
import { RequestAbortedError, type RequestLocation } from "../errors/network.js";
import { ConfigurationError, ResponseValidationError } from "../errors/validation.js";
import { type HistogramLike, SPAN_ERROR, SPAN_KIND_CLIENT, SPAN_OK, type TracerLike } from "../telemetry/types.js";
import { SDK_NAME } from "../version.js";
import type { ApiResponse } from "./api-response.js";
import { sendAttempt } from "./attempt.js";
import { describeBody, unwrapEnvelope } from "./envelope.js";
import { createApiError, effectiveStatusOf } from "./error-factory.js";
import type { OperationRequest } from "./operation.js";
import {
  type ClientOptions,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_DELAY_MS,
  DEFAULT_TIMEOUT_MS,
  type FetchLike,
  type RequestOptions,
  type SleepFunction,
} from "./options.js";
import { parseRateLimit } from "./rate-limit.js";
import { type BodyRedactor, createBodyRedactor } from "./redact.js";
import { type Credential, describeCredential, encodeRequest, fillPath } from "./request-body.js";
import { requestPathReader } from "./request-path.js";
import { isRetryableError, retryDelayMs } from "./retry.js";
import { defaultSleep } from "./sleep.js";
import { assertNotInBrowser, checkCount, normalizeApiKey, normalizeBaseUrl } from "./validate-options.js";

/** A credential a client declares: where it travels and which option it comes from. */
export interface CredentialSpec {
  in: Credential["in"];
  /** Header or parameter name on the wire. */
  name: string;
  /** Client option it comes from, e.g. `"apiKey"`, `"androidKey"` (used in error messages). */
  option: string;
  /** The option's value as the user passed it; trimmed and checked here. */
  value: unknown;
  /** Skip the credential when `value` is `undefined`. */
  optional?: boolean;
}

const MAX_TIMEOUT_MS = 3_600_000;
const MAX_RETRIES = 10;

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const issuesOf = (error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }) =>
  error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message }));

/**
 * The HTTP engine shared by every client: validates client options at construction, then sends operations with
 * credentials, timeouts, retries (reads only), rate-limit parsing, envelope unwrapping, tolerant response parsing,
 * error mapping and secret redaction. Holds credentials in private fields only.
 *
 * @example
 * const transport = new Transport(options, [{ in: "header", name: "X-API-Key", option: "apiKey", value: options.apiKey }]);
 * const { data } = await transport.request({ operation: "listMethods", method: "GET", path: "/methods", ... });
 */
export class Transport {
  readonly #credentials: readonly Credential[];
  readonly #baseUrl: string;
  readonly #fetch: FetchLike;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #maxRetryDelayMs: number;
  readonly #paths: Readonly<Record<string, string | undefined>>;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #clock: () => number;
  readonly #sleep: SleepFunction;
  readonly #random: () => number;
  /** Redacts the credentials; calls with extra secrets get their own. */
  readonly #redactor: BodyRedactor;
  readonly #pathOf: (path: string) => string;
  readonly #tracer: TracerLike | undefined;
  readonly #duration: HistogramLike | undefined;

  constructor(options: ClientOptions, credentials: readonly CredentialSpec[]) {
    if (options === null || typeof options !== "object") {
      throw new ConfigurationError("options", "client options must be an object with at least apiKey and baseUrl");
    }
    assertNotInBrowser(options.dangerouslyAllowBrowser === true);
    this.#credentials = credentials
      .filter((spec) => !(spec.optional && spec.value === undefined))
      .map((spec) => ({ in: spec.in, name: spec.name, value: normalizeApiKey(spec.value, spec.option) }));
    this.#redactor = createBodyRedactor(this.#credentials.map((c) => c.value));
    this.#baseUrl = normalizeBaseUrl(options.baseUrl, options.allowInsecureHttp === true);
    this.#pathOf = requestPathReader(this.#baseUrl);
    const fetchImpl = options.fetch ?? (globalThis.fetch as FetchLike | undefined);
    if (typeof fetchImpl !== "function") {
      throw new ConfigurationError("fetch", "no global fetch in this runtime: pass the fetch option");
    }
    this.#fetch = fetchImpl;
    this.#timeoutMs = checkCount(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, "timeoutMs", 1, MAX_TIMEOUT_MS);
    this.#maxRetries = checkCount(options.maxRetries ?? DEFAULT_MAX_RETRIES, "maxRetries", 0, MAX_RETRIES);
    this.#maxRetryDelayMs = checkCount(
      options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS,
      "maxRetryDelayMs",
      0,
      MAX_TIMEOUT_MS,
    );
    for (const [operation, path] of Object.entries(options.paths ?? {})) {
      if (path !== undefined && (typeof path !== "string" || !path.startsWith("/"))) {
        throw new ConfigurationError("paths", `paths.${operation} must be a path starting with "/"`);
      }
    }
    this.#paths = { ...options.paths };
    this.#headers = { ...options.headers };
    this.#clock = options.clock ?? Date.now;
    this.#sleep = options.sleep ?? defaultSleep;
    this.#random = options.random ?? Math.random;
    this.#tracer = options.telemetry?.tracer;
    this.#duration = options.telemetry?.meter?.createHistogram("kirimbayar.client.duration", {
      description: "Provider API calls, retries included, by operation and outcome",
      unit: "ms",
    });
  }

  /** Where the credentials travel (e.g. `"header X-API-Key"`), for messages. Never the values. */
  get credentialDescription(): string {
    return this.#credentials.map(describeCredential).join(", ") || "no credential";
  }

  /**
   * Sends one operation and returns its parsed result. Reads are retried per `maxRetries`; writes are sent once.
   *
   * @example
   * const result = await transport.request(operation, { timeoutMs: 5_000 });
   */
  async request<T>(operation: OperationRequest<T>, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    if (this.#tracer === undefined && this.#duration === undefined) return this.#request(operation, options);
    return this.#traced(operation, options);
  }

  // The call with its span and duration: what a telemetry backend may see is the operation, the method, the status
  // and the error's code, never the URL (a query may carry a key) or a body.
  async #traced<T>(operation: OperationRequest<T>, options: RequestOptions): Promise<ApiResponse<T>> {
    const startedAt = performance.now();
    const attributes = { "kirimbayar.operation": operation.operation, "http.request.method": operation.method };
    const span = this.#tracer?.startSpan("kirimbayar.client.request", { kind: SPAN_KIND_CLIENT, attributes });
    let attempts = 0;
    try {
      const result = await this.#request(operation, options, () => {
        attempts += 1;
      });
      span?.setAttribute("kirimbayar.attempts", attempts);
      span?.setStatus({ code: SPAN_OK });
      this.#duration?.record(performance.now() - startedAt, { ...attributes, "kirimbayar.outcome": "ok" });
      return result;
    } catch (error) {
      const code = error instanceof KirimbayarError ? error.code : "unexpected";
      const status = (error as { status?: unknown }).status;
      if (span !== undefined) {
        span.setAttribute("kirimbayar.attempts", attempts);
        span.setAttribute("error.type", code);
        if (typeof status === "number") span.setAttribute("http.response.status_code", status);
        span.setStatus({ code: SPAN_ERROR, message: code });
      }
      this.#duration?.record(performance.now() - startedAt, { ...attributes, "kirimbayar.outcome": code });
      throw error;
    } finally {
      span?.end();
    }
  }

  async #request<T>(
    operation: OperationRequest<T>,
    options: RequestOptions,
    onAttempt?: () => void,
  ): Promise<ApiResponse<T>> {
    const timeoutMs = checkCount(options.timeoutMs ?? this.#timeoutMs, "timeoutMs", 1, MAX_TIMEOUT_MS);
    const maxRetries = operation.idempotent
      ? checkCount(options.maxRetries ?? this.#maxRetries, "maxRetries", 0, MAX_RETRIES)
      : 0;
    const redactor =
      operation.secrets === undefined || operation.secrets.length === 0
        ? this.#redactor
        : createBodyRedactor([...this.#credentials.map((c) => c.value), ...operation.secrets]);
    for (let attempt = 0; ; attempt++) {
      try {
        onAttempt?.();
        return await this.#attempt(operation, timeoutMs, options.signal, redactor);
      } catch (error) {
        if (attempt >= maxRetries || !isRetryableError(error)) throw error;
        const now = this.#clock();
        const delay = retryDelayMs(error, attempt, {
          now,
          random: this.#random,
          maxRetryDelayMs: this.#maxRetryDelayMs,
        });
        if (delay === undefined) throw error;
        await this.#sleepOrAbort(delay, options.signal, error);
      }
    }
  }

  async #sleepOrAbort(delay: number, signal: AbortSignal | undefined, lastError: unknown): Promise<void> {
    try {
      await this.#sleep(delay, signal);
    } catch (reason) {
      const location = lastError as RequestLocation;
      throw new RequestAbortedError(
        { method: location.method, path: location.path, operation: location.operation },
        reason,
      );
    }
  }

  async #attempt<T>(
    operation: OperationRequest<T>,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    redactor: BodyRedactor,
  ): Promise<ApiResponse<T>> {
    const path = fillPath(this.#paths[operation.operation] ?? operation.path, operation.pathParams);
    const encoded = encodeRequest(operation.body, operation.query, this.#credentials);
    const query = encoded.query.toString();
    const url = `${this.#baseUrl}${path}${query === "" ? "" : `?${query}`}`;
    const location: RequestLocation = {
      method: operation.method,
      path: this.#pathOf(path),
      operation: operation.operation,
    };
    const headers = new Headers({ Accept: "application/json", "User-Agent": SDK_NAME });
    for (const [name, value] of Object.entries({ ...this.#headers, ...operation.headers })) headers.set(name, value);
    if (encoded.contentType !== undefined) headers.set("Content-Type", encoded.contentType);
    for (const [name, value] of Object.entries(encoded.headers)) headers.set(name, value);
    const init: RequestInit = { method: operation.method, headers, redirect: "manual" };
    if (encoded.body !== undefined) init.body = encoded.body;
    const { response, text } = await sendAttempt({
      fetch: this.#fetch,
      url,
      init,
      timeoutMs,
      signal,
      location,
      idempotent: operation.idempotent,
      redactor,
    });
    return this.#read(operation, response, text, location, redactor);
  }

  #read<T>(
    operation: OperationRequest<T>,
    response: Response,
    text: string,
    location: RequestLocation,
    redactor: BodyRedactor,
  ): ApiResponse<T> {
    const now = this.#clock();
    const rateLimit = parseRateLimit(response.headers, now);
    const rawBody = redactor.text(text);
    const parsed = parseJson(text);
    const raw = parsed === undefined ? undefined : redactor.body(text, parsed);
    const outcome = describeBody(raw);
    if (!response.ok || outcome.failed) {
      const error = createApiError(
        {
          status: response.status,
          effectiveStatus: effectiveStatusOf(response.status, outcome),
          outcome,
          method: location.method,
          path: location.path,
          operation: operation.operation,
          credential: this.credentialDescription,
          headers: response.headers,
          rateLimit,
          rawBody,
          body: raw,
          now,
        },
        operation.mapError,
      );
      const recovered = operation.recover?.(error);
      if (recovered === undefined) throw error;
      return this.#result(recovered, response, rateLimit, raw, rawBody, outcome);
    }
    const unwrapped = unwrapEnvelope(operation.envelope, raw);
    if (unwrapped === undefined) {
      throw new ResponseValidationError({
        issues: [{ path: "", message: `expected a "${operation.envelope}" envelope (or a JSON body)` }],
        operation: operation.operation,
        status: response.status,
        rawBody,
      });
    }
    const data = operation.schema.safeParse(unwrapped.payload);
    if (!data.success) {
      throw new ResponseValidationError({
        issues: issuesOf(data.error),
        operation: operation.operation,
        status: response.status,
        rawBody,
      });
    }
    return this.#result(data.data, response, rateLimit, raw, rawBody, unwrapped);
  }

  #result<T>(
    data: T,
    response: Response,
    rateLimit: ApiResponse<T>["rateLimit"],
    raw: unknown,
    rawBody: string,
    described: { message?: string | undefined; code?: number | string | undefined },
  ): ApiResponse<T> {
    const result: ApiResponse<T> = {
      data,
      status: response.status,
      headers: response.headers,
      rateLimit,
      raw,
      rawBody,
    };
    if (described.message !== undefined) result.message = described.message;
    if (described.code !== undefined) result.code = described.code;
    return result;
  }
}
