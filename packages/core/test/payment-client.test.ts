import { describe, expect, it } from "vitest";
import { ApiError, AuthenticationError } from "../src/errors/api-error.js";
import { RequestValidationError } from "../src/errors/validation.js";
import { PaymentGatewayClient } from "../src/payment/client.js";
import type { CreatePaymentInput } from "../src/payment/input-schemas.js";
import { fakeTime, json, scriptedFetch } from "./http-support.js";

const BASE = "https://sandbox.pay.example.id";
const KEY = "pay-key-0123456789";

const client = (fetch: ReturnType<typeof scriptedFetch>, extra = {}) => {
  const time = fakeTime();
  return new PaymentGatewayClient({
    apiKey: KEY,
    baseUrl: BASE,
    fetch,
    clock: time.clock,
    sleep: time.sleep,
    ...extra,
  });
};

const validInput = (): CreatePaymentInput => ({
  order_id: "INV-2026-0001",
  payment_type: "bank_transfer",
  channel_code: "BCA",
  amount: 150_000,
  customer: { name: "Budi Santoso", email: "budi@example.id", phone: "081234567890" },
  items: [
    { name: "Kopi Gayo 250g", quantity: 2, price: 60_000 },
    { name: "Ongkir", quantity: 1, price: 30_000 },
  ],
  expiry_duration: 7200,
  callback_url: "https://shop.example.id/webhooks/payment",
  callback_api_key: "cb-key-abcdef",
});

const created = {
  meta: { message: "Payment created", code: 201, status: "success" },
  data: {
    payment_id: "KPAY-1234/KM/2026",
    payment_url: "https://pay.example.id/p/KPAY-1234",
    va_number: "8808123456789012",
    qr_string: null,
    bank_code: "BCA",
    amount: 150_000,
    status: "PENDING",
    expired_at: "2026-05-01 12:00:00",
    new_field: { kept: true },
  },
};

describe("listMethods", () => {
  it("GETs /user/api/v1/user/methods with X-API-Key and unwraps { meta, data }", async () => {
    const fetch = scriptedFetch(
      json(
        {
          meta: { message: "Success", code: 200, status: "success" },
          data: [
            {
              payment_type: "va",
              display_name: "BCA Virtual Account",
              bank_code: "BCA",
              logo_url: "https://x/bca.png",
              min_amount: 10000,
              max_amount: "50000000",
              currency: "IDR",
            },
            {
              payment_type: "qris",
              display_name: "QRIS",
              bank_code: "",
              min_amount: 1000,
              max_amount: 10000000,
              currency: "IDR",
            },
            { payment_type: "ewallet", display_name: "New thing" },
          ],
        },
        200,
        { "X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "59" },
      ),
    );
    const result = await client(fetch).listMethods();
    const call = fetch.calls[0]!;
    expect(call.method).toBe("GET");
    expect(call.url.href).toBe(`${BASE}/user/api/v1/user/methods`);
    expect(call.headers.get("X-API-Key")).toBe(KEY);
    expect(call.body).toBeUndefined();
    expect(result.data.map((m) => m.payment_type)).toEqual(["va", "qris", "ewallet"]);
    expect(result.data[0]?.max_amount).toBe(50_000_000);
    expect(result.rateLimit).toEqual({ limit: 60, remaining: 59 });
    expect(result.message).toBe("Success");
  });
});

describe("createPayment", () => {
  it("POSTs the exact JSON body to the spec's create path", async () => {
    const fetch = scriptedFetch(json(created, 201));
    const result = await client(fetch).createPayment(validInput());
    const call = fetch.calls[0]!;
    expect(call.method).toBe("POST");
    expect(call.url.href).toBe(`${BASE}/user/api/v1/user/payment/create`);
    expect(call.headers.get("content-type")).toBe("application/json");
    expect(call.headers.get("x-api-key")).toBe(KEY);
    expect(JSON.parse(call.body as string)).toEqual(validInput());
    expect(result.status).toBe(201);
    expect(result.data.payment_id).toBe("KPAY-1234/KM/2026");
    expect(result.data.status).toBe("PENDING");
    expect(result.data.expired_at).toBe("2026-05-01 12:00:00");
    expect(result.data.expired_at_date?.toISOString()).toBe("2026-05-01T05:00:00.000Z");
    expect(result.data.new_field).toEqual({ kept: true });
  });

  it("accepts payment_type qris without channel_code", async () => {
    const fetch = scriptedFetch(
      json({ meta: { code: 200, status: "success" }, data: { payment_id: "K2", qr_string: "000201" } }),
    );
    const { channel_code: _, ...input } = validInput();
    const result = await client(fetch).createPayment({ ...input, payment_type: "qris" });
    expect(JSON.parse(fetch.calls[0]?.body as string)).not.toHaveProperty("channel_code");
    expect(result.data.qr_string).toBe("000201");
  });

  it("lists every failing field and sends nothing", async () => {
    const fetch = scriptedFetch(json(created));
    const bad = {
      order_id: "",
      payment_type: "bank_transfer",
      amount: 9_999.5,
      customer: { name: "", email: "not-an-email", phone: "0812" },
      items: [
        { name: "Kopi", quantity: 0, price: -1 },
        { name: "Teh", quantity: 1.5, price: 1.25 },
      ],
      expiry_duration: 3599,
      callback_url: "ftp://shop.example.id/cb",
      callback_API_KEY: "x",
    };
    const error = (await client(fetch)
      .createPayment(bad as never)
      .catch((e: unknown) => e)) as RequestValidationError;
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.operation).toBe("createPayment");
    const paths = error.issues.map((i) => i.path).sort();
    expect(paths).toEqual(
      [
        "",
        "amount",
        "amount",
        "callback_api_key",
        "callback_url",
        "channel_code",
        "customer.email",
        "customer.name",
        "expiry_duration",
        "items.0.price",
        "items.0.quantity",
        "items.1.price",
        "items.1.quantity",
        "order_id",
      ].sort(),
    );
    expect(error.issues.find((i) => i.path === "")?.message).toContain("callback_API_KEY");
    expect(fetch.calls).toHaveLength(0);
  });

  it("requires callback_api_key with callback_url, and rejects items missing or empty", async () => {
    const fetch = scriptedFetch(json(created));
    const { callback_api_key: _, ...noKey } = validInput();
    const error = (await client(fetch)
      .createPayment(noKey)
      .catch((e: unknown) => e)) as RequestValidationError;
    expect(error.issues).toEqual([{ path: "callback_api_key", message: "is required when callback_url is given" }]);
    const empty = (await client(fetch)
      .createPayment({ ...validInput(), items: [] })
      .catch((e: unknown) => e)) as RequestValidationError;
    expect(empty.issues.map((i) => i.path)).toEqual(["items"]);
    expect(fetch.calls).toHaveLength(0);
  });

  it("is not retried after a 503", async () => {
    const fetch = scriptedFetch(
      json({ meta: { code: 503, status: "error", message: "Service Unavailable" } }, 503),
      json(created),
    );
    const error = (await client(fetch, { maxRetries: 5 })
      .createPayment(validInput())
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(503);
    expect(error.retryable).toBe(true);
    expect(fetch.calls).toHaveLength(1);
  });

  it("redacts the callback key from an echoed error body", async () => {
    const fetch = scriptedFetch(
      json(
        {
          meta: { code: 422, status: "error", message: "bad callback cb-key-abcdef" },
          data: { callback_api_key: "cb-key-abcdef" },
        },
        422,
      ),
    );
    const error = (await client(fetch)
      .createPayment(validInput())
      .catch((e: unknown) => e)) as ApiError;
    expect(error.rawBody).not.toContain("cb-key-abcdef");
    expect(error.message).not.toContain("cb-key-abcdef");
    expect(JSON.stringify(error.body)).not.toContain("cb-key-abcdef");
  });
});

describe("getPaymentStatus", () => {
  it("GETs the status path with the id URL-encoded, and is retried", async () => {
    const paid = { meta: { code: 200, status: "success" }, data: { ...created.data, status: "PAID" } };
    const fetch = scriptedFetch(json({}, 502), json(paid));
    const result = await client(fetch).getPaymentStatus("KPAY-1234/KM/2026");
    expect(fetch.calls).toHaveLength(2);
    for (const call of fetch.calls) {
      expect(call.method).toBe("GET");
      expect(call.url.href).toBe(`${BASE}/user/api/v1/user/payment/status/KPAY-1234%2FKM%2F2026`);
    }
    expect(result.data.status).toBe("PAID");
  });

  it("keeps unknown statuses (open enum)", async () => {
    const fetch = scriptedFetch(
      json({ meta: { code: 200, status: "success" }, data: { payment_id: 77, status: "REFUNDED" } }),
    );
    const { data } = await client(fetch).getPaymentStatus("77");
    expect(data.status).toBe("REFUNDED");
    expect(data.payment_id).toBe(77);
  });

  it("rejects an empty id before sending", async () => {
    const fetch = scriptedFetch(json({}));
    await expect(client(fetch).getPaymentStatus("  ")).rejects.toBeInstanceOf(RequestValidationError);
    expect(fetch.calls).toHaveLength(0);
  });
});

describe("cancelPayment", () => {
  it("POSTs { payment_id, reason } once", async () => {
    const fetch = scriptedFetch(
      json({
        meta: { code: 200, status: "success", message: "Payment canceled" },
        data: { payment_id: "KPAY-1", status: "CANCELED" },
      }),
    );
    const result = await client(fetch).cancelPayment({ payment_id: "KPAY-1", reason: "out of stock" });
    const call = fetch.calls[0]!;
    expect(call.method).toBe("POST");
    expect(call.url.pathname).toBe("/user/api/v1/user/payment/cancel");
    expect(call.body).toBe(JSON.stringify({ payment_id: "KPAY-1", reason: "out of stock" }));
    expect(result.data?.status).toBe("CANCELED");
    expect(result.message).toBe("Payment canceled");
  });

  it("returns null data when the gateway sends none", async () => {
    const fetch = scriptedFetch(json({ meta: { code: 200, status: "success" }, data: null }));
    expect((await client(fetch).cancelPayment({ payment_id: "KPAY-1" })).data).toBeNull();
    expect(fetch.calls[0]?.body).toBe(JSON.stringify({ payment_id: "KPAY-1" }));
  });

  it("maps an only-PENDING refusal to ApiError without retrying", async () => {
    const fetch = scriptedFetch(
      json({ meta: { code: 400, status: "error", message: "Only PENDING payment can be canceled" }, data: null }, 400),
    );
    const error = (await client(fetch)
      .cancelPayment({ payment_id: "KPAY-1" })
      .catch((e: unknown) => e)) as ApiError;
    expect(error.constructor).toBe(ApiError);
    expect(error.providerMessage).toBe("Only PENDING payment can be canceled");
    expect(fetch.calls).toHaveLength(1);
  });
});

describe("authentication errors (spec error table: 401)", () => {
  it("maps 401 to AuthenticationError naming X-API-Key", async () => {
    const fetch = scriptedFetch(json({ success: false, message: "Unauthorized" }, 401));
    const error = (await client(fetch)
      .listMethods()
      .catch((e: unknown) => e)) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.credential).toBe("header X-API-Key");
    expect(fetch.calls).toHaveLength(1);
  });

  it("recognises an invalid key reported with another status", async () => {
    const fetch = scriptedFetch(
      json({ meta: { code: 400, status: "error", message: "Invalid API Key" }, data: null }, 400),
    );
    await expect(client(fetch).listMethods()).rejects.toBeInstanceOf(AuthenticationError);
  });
});
