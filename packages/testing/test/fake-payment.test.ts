import { describe, expect, it } from "vitest";
import { FakeProviderError } from "../src/index.js";
import { api, fake, scriptedReceiver, validPayment } from "./helpers.js";

describe("fake payment gateway (raw HTTP semantics)", () => {
  it("lists methods in the { meta, data } envelope with rate-limit headers", async () => {
    const provider = fake();
    const response = await api(provider).payment.get("/user/api/v1/user/methods");
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.meta).toEqual({ message: "Success", code: 200, status: "success" });
    expect(body.data.map((m: { bank_code: string }) => m.bank_code)).toContain("BCA");
    expect(response.headers.get("x-ratelimit-limit")).toBe("600");
    expect(response.headers.get("x-ratelimit-remaining")).toBe("599");
    expect(Number(response.headers.get("x-ratelimit-reset"))).toBeGreaterThan(provider.clock.now() / 1000);
  });

  it("answers 401 without or with a wrong X-API-Key, naming the header but never the key", async () => {
    const provider = fake({ apiKeys: { payment: "sk_live_sentinel" } });
    const missing = await api(provider).call("/user/api/v1/user/methods");
    expect(missing.status).toBe(401);
    expect((await missing.json()).meta.message).toMatch(/X-API-Key is missing/);
    const wrong = await api(provider).call("/user/api/v1/user/methods", {
      headers: { "X-API-Key": "sk_live_sentinel_wrong" },
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain("sentinel");
  });

  it("rejects every invalid create field at once (422) and creates nothing", async () => {
    const provider = fake();
    const response = await api(provider).payment.post(
      "/user/api/v1/user/payment/create",
      validPayment({
        amount: 9_999,
        expiry_duration: 3599,
        channel_code: "XYZ",
        customer: { name: "", email: "not-an-email", phone: "" },
        items: [],
        callback_url: "https://shop.test/cb",
      }),
    );
    expect(response.status).toBe(422);
    const body = await response.json();
    expect(body.meta.status).toBe("error");
    expect(body.data).toBeNull();
    expect(body.errors.map((e: { field: string }) => e.field).sort()).toEqual(
      [
        "amount",
        "callback_api_key",
        "channel_code",
        "customer.email",
        "customer.name",
        "customer.phone",
        "expiry_duration",
        "items",
      ].sort(),
    );
    expect(provider.payments.list()).toHaveLength(0);
  });

  it("accepts the minimum amount and expiry, and refuses a body that is not JSON", async () => {
    const provider = fake();
    const ok = await api(provider).payment.post(
      "/user/api/v1/user/payment/create",
      validPayment({ amount: 10_000, expiry_duration: 3600 }),
    );
    expect(ok.status).toBe(200);
    const wrongType = await api(provider).call("/user/api/v1/user/payment/create", {
      method: "POST",
      headers: { "X-API-Key": provider.apiKeys.payment[0] ?? "", "content-type": "application/x-www-form-urlencoded" },
      body: "order_id=1",
    });
    expect(wrongType.status).toBe(415);
  });

  it("creates a PENDING payment whose id contains '/', readable by its URL-encoded id", async () => {
    const provider = fake();
    const created = await (await api(provider).payment.post("/user/api/v1/user/payment/create", validPayment())).json();
    const id: string = created.data.payment_id;
    expect(id).toMatch(/^KPAY-\d+\/KM\/2026$/);
    expect(created.data).toMatchObject({ status: "PENDING", amount: 150_000, bank_code: "BCA", order_id: "ORDER-1" });
    expect(created.data.va_number).toMatch(/^8808\d{12}$/);
    const status = await api(provider).payment.get(`/user/api/v1/user/payment/status/${encodeURIComponent(id)}`);
    expect((await status.json()).data.status).toBe("PENDING");
    const raw = await api(provider).payment.get(`/user/api/v1/user/payment/status/${id}`);
    expect((await raw.json()).data.payment_id).toBe(id);
    const missing = await api(provider).payment.get("/user/api/v1/user/payment/status/KPAY-0%2FKM%2F2026");
    expect(missing.status).toBe(404);
  });

  it("pays, then reports PAID; a paid payment cannot be cancelled", async () => {
    const provider = fake();
    const { data } = await (
      await api(provider).payment.post("/user/api/v1/user/payment/create", validPayment())
    ).json();
    await provider.payments.pay(data.payment_id);
    const status = await (
      await api(provider).payment.get(`/user/api/v1/user/payment/status/${encodeURIComponent(data.payment_id)}`)
    ).json();
    expect(status.data).toMatchObject({ status: "PAID", paid_at: "2026-01-15T03:00:00Z" });
    const cancel = await api(provider).payment.post("/user/api/v1/user/payment/cancel", {
      payment_id: data.payment_id,
      reason: "x",
    });
    expect(cancel.status).toBe(400);
    expect((await cancel.json()).meta.message).toMatch(/PENDING/);
  });

  it("a cancelled VA stays cancelled: it cannot be paid and does not expire", async () => {
    const provider = fake();
    const { data } = await (
      await api(provider).payment.post("/user/api/v1/user/payment/create", validPayment())
    ).json();
    const cancel = await api(provider).payment.post("/user/api/v1/user/payment/cancel", {
      payment_id: data.payment_id,
      reason: "Customer request",
    });
    expect((await cancel.json()).data).toMatchObject({
      payment_id: data.payment_id,
      status: "CANCELED",
      reason: "Customer request",
    });
    await expect(provider.payments.pay(data.payment_id)).rejects.toThrow(FakeProviderError);
    await provider.clock.advance(2 * 3600_000);
    expect(provider.payments.get(data.payment_id)?.record.status).toBe("CANCELED");
    const again = await api(provider).payment.post("/user/api/v1/user/payment/cancel", { payment_id: data.payment_id });
    expect(again.status).toBe(400);
  });

  it("expires after expiry_duration on the clock and calls back signed with HMAC-SHA256 hex", async () => {
    const receiver = scriptedReceiver();
    const provider = fake({ webhooks: { fetch: receiver.fetch } });
    const { data } = await (
      await api(provider).payment.post(
        "/user/api/v1/user/payment/create",
        validPayment({
          expiry_duration: 7200,
          callback_url: "https://shop.test/webhooks/payment",
          callback_api_key: "cb-key",
        }),
      )
    ).json();
    await provider.clock.advance(7200_000 - 1);
    expect(provider.payments.get(data.payment_id)?.record.status).toBe("PENDING");
    await provider.clock.advance(1);
    expect(provider.payments.get(data.payment_id)?.record.status).toBe("EXPIRED");
    expect(receiver.received).toHaveLength(1);
    const [callback] = receiver.received;
    expect(JSON.parse(callback?.body ?? "")).toMatchObject({
      payment_id: data.payment_id,
      status: "EXPIRED",
      amount: 150_000,
    });
    const { createHmac } = await import("node:crypto");
    expect(callback?.headers.get("x-callback-api-key")).toBe(
      createHmac("sha256", "cb-key")
        .update(callback?.body ?? "")
        .digest("hex"),
    );
  });

  it("cancel needs payment_id and a known payment", async () => {
    const provider = fake();
    expect((await api(provider).payment.post("/user/api/v1/user/payment/cancel", {})).status).toBe(422);
    expect((await api(provider).payment.post("/user/api/v1/user/payment/cancel", { payment_id: "nope" })).status).toBe(
      404,
    );
  });
});
