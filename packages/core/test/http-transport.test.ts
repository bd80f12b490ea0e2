import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiError, AuthenticationError, NotFoundError } from "../src/errors/api-error.js";
import { ResponseValidationError } from "../src/errors/validation.js";
import type { OperationRequest } from "../src/http/operation.js";
import { Transport } from "../src/http/transport.js";
import { json, scriptedFetch } from "./http-support.js";

const headerKey = (fetch: ReturnType<typeof scriptedFetch>, extra: Record<string, unknown> = {}) =>
  new Transport({ apiKey: "key-1", baseUrl: "https://api.example.id/base/", fetch, ...extra }, [
    { in: "header", name: "X-API-Key", option: "apiKey", value: "key-1" },
  ]);

const paramKey = (fetch: ReturnType<typeof scriptedFetch>) =>
  new Transport({ apiKey: "key-2", baseUrl: "https://pro.example.id", fetch }, [
    { in: "param", name: "key", option: "apiKey", value: "key-2" },
    { in: "param", name: "android-key", option: "androidKey", value: "droid", optional: true },
  ]);

const op = (extra: Partial<OperationRequest<unknown>> = {}): OperationRequest<unknown> => ({
  operation: "op",
  method: "GET",
  path: "/things/{id}",
  pathParams: { id: "KPAY-1234/KM/2026" },
  idempotent: true,
  envelope: "none",
  schema: z.unknown(),
  ...extra,
});

describe("request encoding", () => {
  it("builds URL, encoded path params, query and default headers", async () => {
    const fetch = scriptedFetch(json({ a: 1 }));
    await headerKey(fetch, { headers: { "X-Shop": "s1", "x-api-key": "override-attempt" } }).request(
      op({ query: { search: "jakarta selatan", limit: 5, offset: undefined } }),
    );
    const call = fetch.calls[0]!;
    expect(call.method).toBe("GET");
    expect(call.url.origin + call.url.pathname).toBe("https://api.example.id/base/things/KPAY-1234%2FKM%2F2026");
    expect([...call.url.searchParams]).toEqual([
      ["search", "jakarta selatan"],
      ["limit", "5"],
    ]);
    expect(call.headers.get("x-api-key")).toBe("key-1");
    expect(call.headers.get("x-shop")).toBe("s1");
    expect(call.headers.get("accept")).toBe("application/json");
    expect(call.headers.get("content-type")).toBeNull();
    expect(call.body).toBeUndefined();
  });

  it("sends JSON bodies with application/json", async () => {
    const fetch = scriptedFetch(json({}));
    await headerKey(fetch).request(op({ method: "POST", body: { json: { amount: 10_000, nested: { a: [1] } } } }));
    expect(fetch.calls[0]?.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(fetch.calls[0]?.body as string)).toEqual({ amount: 10_000, nested: { a: [1] } });
  });

  it("puts param credentials into a form body, after the fields", async () => {
    const fetch = scriptedFetch(json({}));
    await paramKey(fetch).request(
      op({ method: "POST", path: "/api/cost", body: { form: { origin: "501", weight: 1700, key: "user-supplied" } } }),
    );
    const call = fetch.calls[0]!;
    expect(call.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    expect(call.body).toBe("origin=501&weight=1700&key=key-2&android-key=droid");
    expect(call.url.search).toBe("");
  });

  it("puts param credentials into the query when there is no form body", async () => {
    const fetch = scriptedFetch(json({}));
    await paramKey(fetch).request(op({ path: "/api/province", query: { id: "6" } }));
    expect(fetch.calls[0]?.url.search).toBe("?id=6&key=key-2&android-key=droid");
  });

  it("sends multipart bodies as FormData without a hand-written content type", async () => {
    const fetch = scriptedFetch(json({}));
    const image = new Blob([new Uint8Array([1, 2, 3])], { type: "image/png" });
    await paramKey(fetch).request(
      op({ method: "POST", body: { multipart: { name: "Shop", qris_image: { value: image, filename: "q.png" } } } }),
    );
    const body = fetch.calls[0]?.body as FormData;
    expect(body).toBeInstanceOf(FormData);
    expect(body.get("name")).toBe("Shop");
    expect(body.get("key")).toBe("key-2");
    expect((body.get("qris_image") as File).name).toBe("q.png");
    expect(fetch.calls[0]?.headers.get("content-type")).toBeNull();
  });

  it("honours a path override", async () => {
    const fetch = scriptedFetch(json({}));
    await headerKey(fetch, { paths: { op: "/v2/items/{id}" } }).request(op());
    expect(fetch.calls[0]?.url.pathname).toBe("/base/v2/items/KPAY-1234%2FKM%2F2026");
  });

  it("does not follow redirects", async () => {
    const fetch = scriptedFetch(new Response(null, { status: 302, headers: { location: "https://evil.example" } }));
    await expect(headerKey(fetch).request(op())).rejects.toBeInstanceOf(ApiError);
    expect(fetch.calls[0]?.headers.get("x-api-key")).toBe("key-1");
  });
});

describe("envelopes and parsing", () => {
  it("unwraps { meta, data }", async () => {
    const fetch = scriptedFetch(
      json({ meta: { message: "Success", code: 200, status: "success" }, data: [{ id: 1 }] }),
    );
    const result = await headerKey(fetch).request(
      op({ envelope: "meta", schema: z.array(z.looseObject({ id: z.number() })) }),
    );
    expect(result.data).toEqual([{ id: 1 }]);
    expect(result.message).toBe("Success");
    expect(result.code).toBe(200);
    expect(result.status).toBe(200);
    expect(result.raw).toEqual({ meta: { message: "Success", code: 200, status: "success" }, data: [{ id: 1 }] });
  });

  it("unwraps { success, message, data }", async () => {
    const fetch = scriptedFetch(json({ success: true, message: "QRIS generated", data: { history_id: "h1" } }));
    const result = await headerKey(fetch).request(
      op({ envelope: "success", schema: z.looseObject({ history_id: z.string() }) }),
    );
    expect(result.data).toEqual({ history_id: "h1" });
    expect(result.message).toBe("QRIS generated");
    expect(result.code).toBeUndefined();
  });

  it("unwraps { rajaongkir } to its inner object", async () => {
    const body = { rajaongkir: { query: { id: "1" }, status: { code: 200, description: "OK" }, results: [{ a: 1 }] } };
    const fetch = scriptedFetch(json(body));
    const result = await headerKey(fetch).request(op({ envelope: "rajaongkir" }));
    expect(result.data).toEqual(body.rajaongkir);
    expect(result.message).toBe("OK");
  });

  it("keeps unknown fields with loose schemas and exposes the raw body", async () => {
    const fetch = scriptedFetch(json({ success: true, message: "", data: { id: 1, brand_new: "x" } }));
    const result = await headerKey(fetch).request(
      op({ envelope: "success", schema: z.looseObject({ id: z.number() }) }),
    );
    expect(result.data).toEqual({ id: 1, brand_new: "x" });
    expect(result.rawBody).toBe(JSON.stringify({ success: true, message: "", data: { id: 1, brand_new: "x" } }));
  });

  it("throws ResponseValidationError with the raw body when the envelope or schema does not match", async () => {
    const fetch = scriptedFetch(
      new Response("<html>oops</html>", { status: 200 }),
      json({ data: { id: "x" }, success: true }),
    );
    const transport = headerKey(fetch);
    const first = await transport.request(op({ envelope: "meta" })).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(ResponseValidationError);
    expect((first as ResponseValidationError).rawBody).toBe("<html>oops</html>");
    const second = await transport
      .request(op({ envelope: "success", schema: z.looseObject({ id: z.number() }) }))
      .catch((e: unknown) => e);
    expect((second as ResponseValidationError).issues).toEqual([{ path: "id", message: expect.any(String) }]);
  });

  it("exposes rate-limit headers on results", async () => {
    const fetch = scriptedFetch(
      json({}, 200, { "X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "7", "X-RateLimit-Reset": "1767225600" }),
    );
    const { rateLimit } = await headerKey(fetch).request(op());
    expect(rateLimit).toEqual({
      limit: 100,
      remaining: 7,
      reset: new Date("2026-01-01T00:00:00Z"),
      resetRaw: "1767225600",
    });
  });
});

describe("errors from status and body", () => {
  it("maps HTTP 401 to AuthenticationError naming the header", async () => {
    const fetch = scriptedFetch(
      json({ message: "Unauthorized" }, 401, { "X-RateLimit-Remaining": "3", "x-request-id": "r-1" }),
    );
    const error = (await headerKey(fetch)
      .request(op())
      .catch((e: unknown) => e)) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.credential).toBe("header X-API-Key");
    expect(error.message).toContain("header X-API-Key");
    expect(error.status).toBe(401);
    expect(error.rateLimit?.remaining).toBe(3);
    expect(error.requestId).toBe("r-1");
    expect(error.method).toBe("GET");
    expect(error.path).toBe("/base/things/KPAY-1234%2FKM%2F2026");
    expect(error.retryable).toBe(false);
  });

  it("maps an error signalled only in a 200 body", async () => {
    const fetch = scriptedFetch(json({ meta: { message: "Data not found", code: 404, status: "error" }, data: null }));
    const error = (await headerKey(fetch)
      .request(op({ envelope: "meta" }))
      .catch((e: unknown) => e)) as NotFoundError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.status).toBe(200);
    expect(error.providerCode).toBe(404);
    expect(error.providerMessage).toBe("Data not found");
  });

  it("lets recover turn an error into data", async () => {
    const fetch = scriptedFetch(json({ meta: { message: "Not found", code: 404, status: "error" }, data: null }, 404));
    const result = await headerKey(fetch).request(
      op({ envelope: "meta", recover: (error) => (error instanceof NotFoundError ? [] : undefined) }),
    );
    expect(result.data).toEqual([]);
    expect(result.status).toBe(404);
    expect(result.message).toBe("Not found");
  });

  it("uses mapError before the generic mapping", async () => {
    class Custom extends ApiError {}
    const fetch = scriptedFetch(json({ meta: { message: "Invalid Courier", code: 422, status: "error" } }, 422));
    const error = await headerKey(fetch)
      .request(
        op({ mapError: (ctx, details) => (ctx.effectiveStatus === 422 ? new Custom("custom", details) : undefined) }),
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Custom);
    expect((error as Custom).providerMessage).toBe("Invalid Courier");
  });
});
