import { describe, expect, it } from "vitest";
import { api, fake } from "./helpers.js";

describe("fault injection, latency and rate limits", () => {
  it("failNext answers one matching request with the status in the service's envelope", async () => {
    const provider = fake();
    provider.failNext({ path: "/api/v1/destination/province", status: 503, headers: { "Retry-After": "2" } });
    const failed = await api(provider).shipping.get("/api/v1/destination/province");
    expect(failed.status).toBe(503);
    expect(failed.headers.get("retry-after")).toBe("2");
    expect(failed.headers.get("x-ratelimit-limit")).toBe("600");
    expect(await failed.json()).toEqual({
      meta: { message: "Injected failure", code: 503, status: "error" },
      data: null,
    });
    expect((await api(provider).shipping.get("/api/v1/destination/province")).status).toBe(200);
  });

  it("matches by RegExp and method, for a number of times", async () => {
    const provider = fake();
    provider.failNext({ path: /generate-qris$/, method: "POST", status: 500, times: 2 });
    const body = { qris_id: 1, amount: 5000, output_type: "string" };
    expect((await api(provider).qris.post("/user/api/v1/qrisly/generate-qris", body)).status).toBe(500);
    expect(await (await api(provider).qris.post("/user/api/v1/qr/generate-qris", body)).json()).toMatchObject({
      success: false,
    });
    expect((await api(provider).qris.post("/user/api/v1/qr/generate-qris", body)).status).toBe(200);
  });

  it("a network error rejects the in-process fetch like undici does", async () => {
    const provider = fake();
    provider.failNext({ networkError: true });
    const error = await api(provider)
      .payment.get("/user/api/v1/user/methods")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe("fetch failed");
    expect(provider.requests.at(-1)?.status).toBe("network-error");
  });

  it("delays and latency are real time and honour the caller's abort signal", async () => {
    const provider = fake({ latencyMs: 20 });
    const started = performance.now();
    await api(provider).shipping.get("/api/v1/destination/province");
    expect(performance.now() - started).toBeGreaterThanOrEqual(15);
    provider.setLatency(0);
    provider.failNext({ delayMs: 5_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new DOMException("gave up", "TimeoutError")), 20);
    const error = await provider
      .fetch(`${provider.baseUrl}/api/v1/destination/province`, {
        headers: { key: provider.apiKeys.shipping[0] ?? "" },
        signal: controller.signal,
      })
      .catch((e: unknown) => e);
    expect((error as DOMException).name).toBe("TimeoutError");
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it("counts requests per key in a window on the clock and answers 429 with Retry-After", async () => {
    const provider = fake({ rateLimit: { limit: 2, windowMs: 60_000 } });
    const get = () => api(provider).shipping.get("/api/v1/destination/province");
    expect((await get()).headers.get("x-ratelimit-remaining")).toBe("1");
    expect((await get()).headers.get("x-ratelimit-remaining")).toBe("0");
    const limited = await get();
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(limited.headers.get("x-ratelimit-reset")).toBe(String((provider.clock.now() + 60_000) / 1000));
    // Another key has its own counter.
    expect((await api(provider).payment.get("/user/api/v1/user/methods")).status).toBe(200);
    await provider.clock.advance(60_000);
    expect((await get()).status).toBe(200);
  });

  it("answers unknown paths with 404 and never sends rate-limit headers when disabled", async () => {
    const provider = fake({ rateLimit: false });
    const response = await api(provider).shipping.get("/api/v1/nothing-here");
    expect(response.status).toBe(404);
    expect(response.headers.get("x-ratelimit-limit")).toBeNull();
    expect(() => provider.failNext({ path: "/x" })).toThrow(TypeError);
  });

  it("records requests without headers and with keys redacted from the query", async () => {
    const provider = fake();
    await api(provider).call(`/api/province?key=${provider.apiKeys.pro[0]}&id=1`);
    expect(provider.requests.at(-1)).toMatchObject({
      method: "GET",
      path: "/api/province",
      query: "?key=%5Bredacted%5D&id=1",
      service: "pro",
      status: 200,
    });
  });
});
