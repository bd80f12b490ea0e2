import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiError, RateLimitError } from "../src/errors/api-error.js";
import { ConnectionError, RequestAbortedError, TimeoutError } from "../src/errors/network.js";
import type { OperationRequest } from "../src/http/operation.js";
import { BASE_BACKOFF_MS, MAX_BACKOFF_MS, retryDelayMs } from "../src/http/retry.js";
import { Transport } from "../src/http/transport.js";
import { fakeTime, hangingFetch, json, scriptedFetch } from "./http-support.js";

const read: OperationRequest<unknown> = {
  operation: "read",
  method: "GET",
  path: "/r",
  idempotent: true,
  envelope: "none",
  schema: z.unknown(),
};
const write: OperationRequest<unknown> = {
  ...read,
  operation: "write",
  method: "POST",
  idempotent: false,
  body: { json: {} },
};

const setup = (fetch: Parameters<typeof scriptedFetch>[0][] | ReturnType<typeof scriptedFetch>, extra = {}) => {
  const time = fakeTime();
  const fetchImpl = Array.isArray(fetch) ? scriptedFetch(...fetch) : fetch;
  const transport = new Transport(
    {
      apiKey: "test-key-123",
      baseUrl: "https://x.id",
      fetch: fetchImpl,
      clock: time.clock,
      sleep: time.sleep,
      random: () => 0.5,
      ...extra,
    },
    [{ in: "header", name: "X-API-Key", option: "apiKey", value: "test-key-123" }],
  );
  return { time, fetch: fetchImpl, transport };
};

describe("reads are retried", () => {
  it("on 5xx with full-jitter exponential backoff, then succeed", async () => {
    const { time, fetch, transport } = setup([json({}, 503), json({}, 500), json({ ok: true })]);
    const result = await transport.request(read);
    expect(result.data).toEqual({ ok: true });
    expect(fetch.calls).toHaveLength(3);
    expect(time.sleeps).toEqual([0.5 * BASE_BACKOFF_MS, 0.5 * BASE_BACKOFF_MS * 2]);
  });

  it("on network errors, and give up after maxRetries with the last error", async () => {
    const { time, fetch, transport } = setup([new TypeError("fetch failed")]);
    const error = await transport.request(read).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(fetch.calls).toHaveLength(3);
    expect(time.sleeps).toHaveLength(2);
  });

  it("never beyond one attempt with maxRetries: 0 (client or per call)", async () => {
    const client = setup([json({}, 503)], { maxRetries: 0 });
    await expect(client.transport.request(read)).rejects.toBeInstanceOf(ApiError);
    expect(client.fetch.calls).toHaveLength(1);
    const perCall = setup([json({}, 503)]);
    await expect(perCall.transport.request(read, { maxRetries: 0 })).rejects.toBeInstanceOf(ApiError);
    expect(perCall.fetch.calls).toHaveLength(1);
    expect(perCall.time.sleeps).toEqual([]);
  });

  it("honours Retry-After in seconds", async () => {
    const { time, transport } = setup([json({}, 429, { "Retry-After": "7" }), json({})]);
    await transport.request(read);
    expect(time.sleeps).toEqual([7000]);
  });

  it("honours Retry-After as an HTTP date", async () => {
    const time0 = fakeTime().clock();
    const date = new Date(time0 + 4000).toUTCString();
    const { time, transport } = setup([json({}, 503, { "Retry-After": date }), json({})]);
    await transport.request(read);
    expect(time.sleeps).toEqual([4000]);
  });

  it.each([
    ["epoch seconds", (now: number) => String(now / 1000 + 3)],
    ["epoch milliseconds", (now: number) => String(now + 3000)],
    ["ISO 8601", (now: number) => new Date(now + 3000).toISOString()],
    ["seconds from now", () => "3"],
  ])("honours X-RateLimit-Reset as %s on a 429", async (_, reset) => {
    const now = fakeTime().clock();
    const { time, transport } = setup([
      json({}, 429, { "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset(now) }),
      json({}),
    ]);
    await transport.request(read);
    expect(time.sleeps).toEqual([3000]);
  });

  it("throws at once when the provider asks for a wait above maxRetryDelayMs", async () => {
    const { time, fetch, transport } = setup([json({}, 429, { "Retry-After": "120" })]);
    const error = (await transport.request(read).catch((e: unknown) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(120_000);
    expect(fetch.calls).toHaveLength(1);
    expect(time.sleeps).toEqual([]);
  });

  it("does not retry 4xx other than 429", async () => {
    const { fetch, transport } = setup([json({ message: "bad" }, 400)]);
    await expect(transport.request(read)).rejects.toBeInstanceOf(ApiError);
    expect(fetch.calls).toHaveLength(1);
  });

  it("retries a 5xx signalled only in the body", async () => {
    const { fetch, transport } = setup([
      json({ meta: { code: 500, status: "error", message: "" }, data: null }),
      json({}),
    ]);
    await transport.request(read);
    expect(fetch.calls).toHaveLength(2);
  });
});

describe("writes are never retried", () => {
  it("a create is not retried after a 503", async () => {
    const { time, fetch, transport } = setup([json({}, 503, { "Retry-After": "1" }), json({ ok: true })]);
    const error = (await transport.request(write).catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(503);
    expect(fetch.calls).toHaveLength(1);
    expect(time.sleeps).toEqual([]);
  });

  it("a network failure of a write is thrown once, warning that it may have been processed", async () => {
    const { fetch, transport } = setup([new TypeError("socket hang up")], { maxRetries: 5 });
    const error = (await transport.request(write, { maxRetries: 5 }).catch((e: unknown) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toMatch(/may have processed it/);
    expect(error.message).toContain("socket hang up");
    expect(fetch.calls).toHaveLength(1);
  });
});

describe("timeouts and aborts", () => {
  it("turns an expired per-call timeout into TimeoutError, even if fetch ignores the signal", async () => {
    const neverFetch = scriptedFetch(() => new Promise<Response>(() => {}));
    const { transport } = setup(neverFetch, { maxRetries: 0 });
    const error = (await transport.request(read, { timeoutMs: 20 }).catch((e: unknown) => e)) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.timeoutMs).toBe(20);
    expect(neverFetch.calls[0]?.signal?.aborted).toBe(true);
  });

  it("uses the client timeout and retries timed-out reads", async () => {
    const fetch = scriptedFetch((call) => hangingFetch(call.url, { signal: call.signal ?? null }), json({ ok: 1 }));
    const { transport } = setup(fetch, { timeoutMs: 15 });
    const result = await transport.request(read);
    expect(result.data).toEqual({ ok: 1 });
    expect(fetch.calls).toHaveLength(2);
  });

  it("a timed-out write is not retried", async () => {
    const fetch = scriptedFetch((call) => hangingFetch(call.url, { signal: call.signal ?? null }));
    const { transport } = setup(fetch, { timeoutMs: 15 });
    const error = await transport.request(write).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).message).toMatch(/may have processed it/);
    expect(fetch.calls).toHaveLength(1);
  });

  it("a caller abort becomes RequestAbortedError and is not retried", async () => {
    const controller = new AbortController();
    const fetch = scriptedFetch((call) => {
      setTimeout(() => controller.abort(new Error("user left")), 5);
      return hangingFetch(call.url, { signal: call.signal ?? null });
    });
    const { transport } = setup(fetch);
    const error = (await transport
      .request(read, { signal: controller.signal })
      .catch((e: unknown) => e)) as RequestAbortedError;
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error.cause as Error).message).toBe("user left");
    expect(fetch.calls).toHaveLength(1);
  });

  it("an already-aborted signal sends nothing", async () => {
    const { fetch, transport } = setup([json({})]);
    await expect(transport.request(read, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(RequestAbortedError);
    expect(fetch.calls).toHaveLength(0);
  });

  it("an abort during the backoff wait stops the retries", async () => {
    const controller = new AbortController();
    const fetch = scriptedFetch(json({}, 503));
    const transport = new Transport({ apiKey: "k", baseUrl: "https://x.id", fetch, random: () => 1 }, [
      { in: "header", name: "X-API-Key", option: "apiKey", value: "k" },
    ]);
    setTimeout(() => controller.abort(), 20);
    const error = await transport.request(read, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(fetch.calls).toHaveLength(1);
  });
});

describe("retryDelayMs", () => {
  it("caps the backoff ceiling and scales with random()", () => {
    const err = new ConnectionError("x", { method: "GET", path: "/" });
    const at = (attempt: number, random: number) =>
      retryDelayMs(err, attempt, { now: 0, random: () => random, maxRetryDelayMs: 60_000 });
    expect(at(0, 0)).toBe(0);
    expect(at(0, 0.999)).toBe(499);
    expect(at(3, 0.5)).toBe(2000);
    expect(at(10, 0.5)).toBe(MAX_BACKOFF_MS / 2);
  });
});
