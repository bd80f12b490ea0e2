import { describe, expect, it } from "vitest";
import { ApiError, AuthenticationError } from "../src/errors/api-error.js";
import { RequestValidationError } from "../src/errors/validation.js";
import { OrderWebhookClient } from "../src/orders/client.js";
import { json, scriptedFetch } from "./http-support.js";

const BASE = "https://api.ship.example.id";
const KEY = "order-key-0123456789";

describe("registerWebhook", () => {
  it("PUTs { url } as JSON to /order/api/v1/webhook with x-api-key", async () => {
    const fetch = scriptedFetch(json({ success: true, message: "Webhook updated" }));
    const orders = new OrderWebhookClient({ apiKey: KEY, baseUrl: BASE, fetch });
    const result = await orders.registerWebhook({
      url: "https://shop.example.id/webhooks/orders?token=tok-s3cret-123",
    });
    const call = fetch.calls[0]!;
    expect(call.method).toBe("PUT");
    expect(call.url.href).toBe(`${BASE}/order/api/v1/webhook`);
    expect(call.headers.get("x-api-key")).toBe(KEY);
    expect(call.headers.get("content-type")).toBe("application/json");
    expect(call.body).toBe(JSON.stringify({ url: "https://shop.example.id/webhooks/orders?token=tok-s3cret-123" }));
    expect(result.data).toEqual({ success: true, message: "Webhook updated" });
    expect(result.status).toBe(200);
  });

  it("uses a custom body builder and path", async () => {
    const fetch = scriptedFetch(json({}));
    const orders = new OrderWebhookClient({
      apiKey: KEY,
      baseUrl: BASE,
      fetch,
      buildRegisterBody: (url) => ({ webhook_url: url, active: true }),
      paths: { registerWebhook: "/order/api/v2/webhook" },
    });
    await orders.registerWebhook({ url: "http://localhost:3000/hook" });
    expect(fetch.calls[0]?.url.pathname).toBe("/order/api/v2/webhook");
    expect(JSON.parse(fetch.calls[0]?.body as string)).toEqual({
      webhook_url: "http://localhost:3000/hook",
      active: true,
    });
  });

  it.each(["http://shop.example.id/hook", "ftp://shop.example.id", "/relative", "https://u:p@shop.example.id", ""])(
    "rejects %j before sending",
    async (url) => {
      const fetch = scriptedFetch(json({}));
      const error = await new OrderWebhookClient({ apiKey: KEY, baseUrl: BASE, fetch })
        .registerWebhook({ url })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).issues.map((i) => i.path)).toEqual(["url"]);
      expect(fetch.calls).toHaveLength(0);
    },
  );

  it("is never retried and redacts the URL token from errors", async () => {
    const fetch = scriptedFetch(json({ message: "cannot reach https://shop.example.id/h?token=tok-s3cret-123" }, 503));
    const orders = new OrderWebhookClient({ apiKey: KEY, baseUrl: BASE, fetch, maxRetries: 3 });
    const error = (await orders
      .registerWebhook({ url: "https://shop.example.id/h?token=tok-s3cret-123" })
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(fetch.calls).toHaveLength(1);
    expect(error.rawBody).not.toContain("tok-s3cret-123");
    expect(error.message).not.toContain("tok-s3cret-123");
  });

  it("maps an invalid key to AuthenticationError naming x-api-key", async () => {
    const fetch = scriptedFetch(json({ message: "Forbidden" }, 403));
    const error = (await new OrderWebhookClient({ apiKey: KEY, baseUrl: BASE, fetch })
      .registerWebhook({ url: "https://shop.example.id/h" })
      .catch((e: unknown) => e)) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.credential).toBe("header x-api-key");
  });
});
