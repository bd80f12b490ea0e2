import { describe, expect, it } from "vitest";
import {
  ApiError,
  AuthenticationError,
  MissingParameterError,
  NoCourierServiceError,
  NotFoundError,
  RateLimitError,
} from "../src/errors/api-error.js";
import { KirimbayarError } from "../src/errors/base.js";
import { describeBody } from "../src/http/envelope.js";
import { createApiError, type ErrorContext, effectiveStatusOf, messageIncludes } from "../src/http/error-factory.js";
import { parseRateLimit } from "../src/http/rate-limit.js";

const NOW = Date.UTC(2026, 0, 1);

const context = (status: number, body: unknown, headers: Record<string, string> = {}): ErrorContext => {
  const h = new Headers(headers);
  const outcome = describeBody(body);
  return {
    status,
    effectiveStatus: effectiveStatusOf(status, outcome),
    outcome,
    method: "GET",
    path: "/p",
    operation: "op",
    credential: "header key",
    headers: h,
    rateLimit: parseRateLimit(h, NOW),
    rawBody: JSON.stringify(body),
    body,
    now: NOW,
  };
};

describe("createApiError", () => {
  it.each([
    ["401", 401, { message: "Unauthorized" }, AuthenticationError],
    ["403", 403, {}, AuthenticationError],
    [
      "Indonesian invalid key on HTTP 400 (Pro/Starter)",
      400,
      {
        rajaongkir: {
          status: { code: 400, description: "Invalid key. API key tidak ditemukan di database RajaOngkir." },
        },
      },
      AuthenticationError,
    ],
    ["429", 429, { message: "Too many" }, RateLimitError],
    [
      "404",
      404,
      { meta: { code: 404, status: "error", message: "Domestic Destinations Data not found" }, data: null },
      NotFoundError,
    ],
    [
      "404 in a 200 body",
      200,
      { meta: { code: 404, status: "error", message: "International Destinations Data not found" }, data: null },
      NotFoundError,
    ],
    ["422", 422, { meta: { code: 422, status: "error", message: "Parameter Missing" }, data: null }, ApiError],
    ["500", 500, { meta: { code: 500, status: "error", message: "" }, data: null }, ApiError],
    ["success:false", 200, { success: false, message: "Bad amount" }, ApiError],
  ])("maps %s", (_, status, body, type) => {
    const error = createApiError(context(status, body));
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(KirimbayarError);
    expect(error.constructor).toBe(type);
  });

  it("puts status, provider code and message, and retryability on the error", () => {
    const error = createApiError(
      context(400, { meta: { code: 422, status: "error", message: "Invalid Courier" }, data: null }),
    );
    expect(error.status).toBe(400);
    expect(error.providerCode).toBe(422);
    expect(error.providerMessage).toBe("Invalid Courier");
    expect(error.message).toBe("GET /p failed with HTTP 400 (code 422): Invalid Courier");
    expect(error.retryable).toBe(false);
    expect(createApiError(context(502, {})).retryable).toBe(true);
    expect(createApiError(context(200, { meta: { code: 503, status: "error" } })).retryable).toBe(true);
  });

  it("fills RateLimitError from Retry-After or X-RateLimit-Reset", () => {
    const fromRetryAfter = createApiError(
      context(429, {}, { "Retry-After": "12", "X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "0" }),
    ) as RateLimitError;
    expect(fromRetryAfter.retryAfterMs).toBe(12_000);
    expect(fromRetryAfter.limit).toBe(100);
    expect(fromRetryAfter.remaining).toBe(0);
    const fromReset = createApiError(
      context(429, {}, { "X-RateLimit-Reset": String(NOW / 1000 + 30) }),
    ) as RateLimitError;
    expect(fromReset.retryAfterMs).toBe(30_000);
    expect(fromReset.reset).toEqual(new Date(NOW + 30_000));
    expect(fromReset.toJSON()).toMatchObject({ code: "rate_limited", retryAfterMs: 30_000, status: 429 });
  });

  it("lets a mapper choose the class, comparing messages case-insensitively", () => {
    const mapper = (ctx: ErrorContext, details: ConstructorParameters<typeof ApiError>[1]) => {
      if (messageIncludes(ctx.outcome.message, "missing param")) return new MissingParameterError("missing", details);
      if (ctx.effectiveStatus === 400 && messageIncludes(ctx.outcome.message, "NOT FOUND"))
        return new NoCourierServiceError("none", details);
      return undefined;
    };
    const missing = createApiError(
      context(400, { meta: { code: 400, status: "error", message: "MISSING PARAMS" } }),
      mapper,
    );
    expect(missing).toBeInstanceOf(MissingParameterError);
    const none = createApiError(
      context(400, { meta: { code: 400, status: "error", message: "Calculate Domestic Shipping Cost not found" } }),
      mapper,
    );
    expect(none).toBeInstanceOf(NoCourierServiceError);
    expect(none).toBeInstanceOf(NotFoundError);
    expect(none.retryable).toBe(false);
    expect(none.code).toBe("no_courier_service");
    expect(createApiError(context(500, { message: "other" }), mapper).constructor).toBe(ApiError);
  });

  it("reads the request id header", () => {
    expect(createApiError(context(500, {}, { "X-Request-Id": "req-9" })).requestId).toBe("req-9");
  });
});

describe("describeBody", () => {
  it.each([
    [{ meta: { code: 200, status: "success" }, data: [] }, false],
    [{ meta: { code: 200, status: "ERROR", message: "x" } }, true],
    [{ meta: { code: "404" } }, true],
    [{ rajaongkir: { status: { code: 200, description: "OK" } } }, false],
    [{ rajaongkir: { status: { code: "400", description: "Bad" } } }, true],
    [{ success: true, data: {} }, false],
    [{ success: false }, true],
    [{ error_code: "00", message: "ok" }, false],
    [{ error_code: "E01", message: "bad" }, true],
    [{ code: 500 }, true],
    [[1, 2], false],
    ["text", false],
  ])("%j → failed %s", (body, failed) => {
    expect(describeBody(body).failed).toBe(failed);
  });
});
