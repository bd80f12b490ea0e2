// The simulator page and the control API behind it, over the fake's in-process fetch.
import { PaymentGatewayClient, QrisClient } from "@kirimbayar/core";
import { describe, expect, it } from "vitest";
import { fake, scriptedReceiver, validPayment } from "./helpers.js";

const QR_TOKEN = "qr-webhook-s3cret";
const CALLBACK_KEY = "callback-api-key-s3cret";

async function world() {
  const receiver = scriptedReceiver();
  const provider = fake({
    controlApi: true,
    apiKeys: { qris: "qris-key-s3cret", payment: "payment-key-s3cret" },
    webhooks: { qrisUrl: `https://shop.test/webhooks/qris?token=${QR_TOKEN}`, fetch: receiver.fetch },
  });
  const qris = new QrisClient({ apiKey: "qris-key-s3cret", baseUrl: provider.baseUrl, fetch: provider.fetch });
  const payments = new PaymentGatewayClient({
    apiKey: "payment-key-s3cret",
    baseUrl: provider.baseUrl,
    fetch: provider.fetch,
  });
  const { data: code } = await qris.generateQris({ qris_id: 1, amount: 75_000, output_type: "string" });
  const { data: payment } = await payments.createPayment({
    ...validPayment(),
    callback_url: "https://shop.test/webhooks/payment?token=pay-token-s3cret",
    callback_api_key: CALLBACK_KEY,
  });
  const order = provider.orders.create({ courier: "jne" });
  const control = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    provider.fetch(`${provider.baseUrl}/__fake${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  const get = (path: string) => provider.fetch(`${provider.baseUrl}/__fake${path}`);
  return { provider, receiver, code, payment, order, control, get };
}

describe("simulator control API", () => {
  it("answers an unknown id with 404 and a message, a missing one with 400", async () => {
    const { control } = await world();
    for (const [path, body, message] of [
      ["/qris/pay", { history_id: "nope" }, "no QR code with history_id nope"],
      ["/qris/expire", { history_id: "nope" }, "no QR code with history_id nope"],
      ["/payments/pay", { payment_id: "KPAY-0/KM/2026" }, "no payment with payment_id KPAY-0/KM/2026"],
      ["/payments/cancel", { payment_id: "KPAY-0/KM/2026" }, "no payment with payment_id KPAY-0/KM/2026"],
      ["/orders/status", { order_no: "KOM0", status: "Dikirim" }, "no order KOM0"],
    ] as const) {
      const response = await control(path, body);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toEqual({ error: "not_found", message });
    }
    const missing = await control("/qris/pay", {});
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: "invalid_input", field: "history_id" });
    expect((await control("/clock/advance", { ms: -5 })).status).toBe(400);
    expect((await control("/clock/advance", { ms: "soon" })).status).toBe(400);
    expect((await control("/webhooks/fail-next", { count: 1.5 })).status).toBe(400);
    expect((await control("/webhooks/fail-next", { count: 101 })).status).toBe(400);
  });

  it("answers a bad state transition with 409 naming the transitions allowed", async () => {
    const { control, code, payment, order } = await world();
    expect((await control("/qris/pay", { history_id: code.history_id })).status).toBe(200);
    const twice = await control("/qris/pay", { history_id: code.history_id });
    expect(twice.status).toBe(409);
    expect(await twice.json()).toEqual({
      error: "invalid_transition",
      message: `cannot pay QR code ${code.history_id}: it is paid. Allowed from paid: none (a final state)`,
      status: "paid",
      allowed: [],
    });
    expect((await control("/payments/cancel", { payment_id: payment.payment_id })).status).toBe(200);
    const payCancelled = await control("/payments/pay", { payment_id: payment.payment_id });
    expect(payCancelled.status).toBe(409);
    expect((await payCancelled.json()).message).toMatch(/it is CANCELED\. Allowed from CANCELED: none/);
    expect((await control("/orders/status", { order_no: order.orderNo, status: "Dikirim" })).status).toBe(200);
    const backwards = await control("/orders/status", { order_no: order.orderNo, status: "Dijemput" });
    expect(backwards.status).toBe(409);
    expect(await backwards.json()).toEqual({
      error: "invalid_transition",
      message: `cannot move order ${order.orderNo} from Dikirim to Dijemput. Allowed from Dikirim: Selesai`,
      status: "Dikirim",
      allowed: ["Selesai"],
    });
  });

  it("makes the next N deliveries fail without reaching the app, each retried on schedule", async () => {
    const { provider, receiver, control, code } = await world();
    expect(await (await control("/webhooks/fail-next", { count: 2 })).json()).toEqual({ pendingFailures: 2 });
    await control("/qris/pay", { history_id: code.history_id });
    expect(receiver.received).toHaveLength(0);
    await control("/clock/advance", { ms: 60_000 });
    expect(receiver.received).toHaveLength(0);
    await control("/clock/advance", { ms: 5 * 60_000 });
    expect(receiver.received).toHaveLength(1);
    expect(
      provider.deliveries.map((d) => [d.attempt, d.injectedFailure ?? false, d.acknowledged, d.nextAttemptAt]),
    ).toEqual([
      [1, true, false, new Date("2026-01-15T03:01:00Z")],
      [2, true, false, new Date("2026-01-15T03:06:00Z")],
      [3, false, true, undefined],
    ]);
  });

  it("takes forms: a browser without the script gets a redirect back, or a page saying what was refused", async () => {
    const { provider, code } = await world();
    const form = (path: string, fields: Record<string, string>) =>
      provider.fetch(`${provider.baseUrl}/__fake${path}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html,*/*" },
        body: new URLSearchParams(fields).toString(),
      });
    const paid = await form("/qris/pay", {
      history_id: String(code.history_id),
      return_to: `/__fake/simulator/qris/${code.history_id}`,
    });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(`/__fake/simulator/qris/${code.history_id}`);
    expect(provider.qris.get(String(code.history_id))?.status).toBe("paid");
    const refused = await form("/qris/expire", { history_id: String(code.history_id), return_to: "https://evil.test" });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("Allowed from paid: none (a final state)");
    const elsewhere = await form("/clock/advance", { ms: "60000", return_to: "//evil.test/__fake/simulator" });
    expect(elsewhere.headers.get("location")).toBe("/__fake/simulator");
  });

  it("refuses writes from another origin's page", async () => {
    const { provider, control, code } = await world();
    const forged = await control("/qris/pay", { history_id: code.history_id }, { origin: "https://evil.test" });
    expect(forged.status).toBe(403);
    expect(provider.qris.get(String(code.history_id))?.status).toBe("unpaid");
    const sameOrigin = await control("/qris/pay", { history_id: code.history_id }, { origin: provider.baseUrl });
    expect(sameOrigin.status).toBe(200);
  });
});

describe("simulator page", () => {
  it("lists QR codes with their image, payments and orders with their actions, and the delivery log", async () => {
    const { control, get, code, payment, order } = await world();
    await control("/qris/pay", { history_id: code.history_id });
    const page = await get("/simulator");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain(`<img src="/__fake/qris/${code.history_id}/image.png"`);
    expect(html).toContain(payment.payment_id);
    expect(html).toContain(`id="payment-${String(payment.payment_id).replace(/[^A-Za-z0-9_-]/g, "_")}-cancel"`);
    expect(html).toContain(order.orderNo);
    expect(html).toContain('value="Dijemput"');
    expect(html).toContain("payment.success");
    expect(html).toContain('<label for="fail-count">');
    expect(html).toMatch(/Delivery log <span class="count">\(1\)<\/span>/);
  });

  it("never shows API keys, webhook tokens or the callback key, on the page or in the state", async () => {
    const { control, get, code, payment } = await world();
    await control("/qris/pay", { history_id: code.history_id });
    await control("/payments/pay", { payment_id: payment.payment_id });
    const texts = [
      await (await get("/simulator")).text(),
      await (await get("/simulator?fragment=1")).text(),
      await (await get(`/simulator/qris/${code.history_id}`)).text(),
      await (await get("/state")).text(),
    ];
    for (const text of texts) {
      for (const secret of ["qris-key-s3cret", "payment-key-s3cret", QR_TOKEN, "pay-token-s3cret", CALLBACK_KEY]) {
        expect(text).not.toContain(secret);
      }
    }
    expect(texts[3]).toContain("token=[redacted]");
  });

  it("serves a fragment and a revision that moves with the state, and a page per QR code", async () => {
    const { control, get, code } = await world();
    const before = (await (await get("/state")).json()) as { revision: string; qrCodes: { status: string }[] };
    expect(before.qrCodes[0]?.status).toBe("unpaid");
    const fragment = await get("/simulator?fragment=1");
    expect(fragment.headers.get("x-simulator-revision")).toBe(before.revision);
    expect(await fragment.text()).not.toContain("<html");
    await control("/clock/advance", { ms: 1000 });
    expect(((await (await get("/state")).json()) as { revision: string }).revision).toBe(before.revision);
    await control("/qris/expire", { history_id: code.history_id });
    expect(((await (await get("/state")).json()) as { revision: string }).revision).not.toBe(before.revision);
    const detail = await get(`/simulator/qris/${code.history_id}`);
    expect(detail.status).toBe(200);
    expect(await detail.text()).toContain(code.qris_string);
    const unknown = await get("/simulator/qris/nope");
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain("No QR code with history_id nope.");
  });

  it("keeps the log to the newest 200 attempts, pointing to the full list", async () => {
    const { provider, control, get, code } = await world();
    provider.webhooks.duplicateNext(205);
    await control("/qris/pay", { history_id: code.history_id });
    const state = (await (await get("/state")).json()) as { deliveries: unknown[]; deliveryCount: number };
    expect([state.deliveries.length, state.deliveryCount]).toEqual([200, 206]);
    const html = await (await get("/simulator")).text();
    expect(html).toContain('The newest 200; every attempt is at <a href="/__fake/deliveries">');
    expect(((await (await get("/deliveries")).json()) as unknown[]).length).toBe(206);
  });

  it("exists only with the control API", async () => {
    const provider = fake();
    expect((await provider.fetch(`${provider.baseUrl}/__fake/simulator`)).status).toBe(404);
  });
});
