// The fake provider delivers its webhooks straight into a real app of each framework, through the kirimbayar adapter
// and the matching helper of @kirimbayar/testing, with no port either way: the app calls the fake through
// `provider.fetch`, the fake calls the app through the helper. Signatures verify over the raw bytes, a duplicate
// applies once, a failing handler is retried on the provider's schedule.
import { PaymentGatewayClient, QrisClient } from "@kirimbayar/core";
import { createFakeProvider, type FakeProvider } from "@kirimbayar/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CALLBACK_KEY, Effects, frameworks, type InProcessShop, ORDERS_TOKEN, QRIS_TOKEN } from "./apps.js";

const customer = { name: "Rina", email: "rina@example.co.id", phone: "081377788899" };

describe.each(frameworks)("$name receives the fake's webhooks in process", (framework) => {
  let provider: FakeProvider;
  let shop: InProcessShop;
  let effects: Effects;

  beforeEach(async () => {
    // The fake first (an app needs its URL at boot), the app's in-process target handed to it once the app is up.
    provider = createFakeProvider({
      webhooks: {
        qrisUrl: `http://shop.test/webhooks/qris?token=${QRIS_TOKEN}`,
        ordersUrl: `http://shop.test/webhooks/orders?token=${ORDERS_TOKEN}`,
      },
    });
    effects = new Effects();
    shop = await framework.start(effects);
    provider.webhooks.setFetch(shop.fetch);
  });

  afterEach(async () => {
    await provider.webhooks.settled();
    await shop.close();
  });

  const qris = () =>
    new QrisClient({ apiKey: provider.apiKeys.qris[0]!, baseUrl: provider.baseUrl, fetch: provider.fetch });
  const payments = () =>
    new PaymentGatewayClient({
      apiKey: provider.apiKeys.payment[0]!,
      baseUrl: provider.baseUrl,
      fetch: provider.fetch,
    });
  const statuses = () => provider.deliveries.map((d) => d.status);

  it("QRIS: the token verifies and a payment delivered twice applies once; a wrong token is refused", async () => {
    const { data } = await qris().generateQris({ qris_id: 1, amount: 75_000, output_type: "string" });
    provider.webhooks.duplicateNext(1);
    await provider.qris.pay(String(data.history_id));
    expect(provider.deliveries.map((d) => [d.duplicate, d.status, d.acknowledged])).toEqual([
      [false, 200, true],
      [true, 200, true],
    ]);
    expect(effects.paidQr).toEqual([data.history_id]);

    provider.qris.setWebhookUrl("http://shop.test/webhooks/qris?token=not-the-token");
    const other = await qris().generateQris({ qris_id: 1, amount: 75_000, output_type: "string" });
    await provider.qris.pay(String(other.data.history_id));
    expect(statuses().at(-1)).toBe(401);
    expect(effects.paidQr).toEqual([data.history_id]);
  });

  it("payment callback: the HMAC of the raw body verifies; one signed with another key is refused", async () => {
    const create = (order_id: string, callback_api_key: string) =>
      payments().createPayment({
        order_id,
        payment_type: "bank_transfer",
        channel_code: "BCA",
        amount: 150_000,
        customer,
        items: [{ name: "Kaos", quantity: 1, price: 150_000 }],
        callback_url: "http://shop.test/webhooks/payment",
        callback_api_key,
      });
    const good = await create("INV-1", CALLBACK_KEY);
    await provider.payments.pay(String(good.data.payment_id));
    expect(statuses()).toEqual([200]);
    expect(effects.paidPayments).toEqual([`${good.data.payment_id}:PAID`]);

    const forged = await create("INV-2", "someone-elses-key-0123");
    await provider.payments.pay(String(forged.data.payment_id));
    expect(statuses()).toEqual([200, 401]);
    expect(effects.paidPayments).toHaveLength(1);
  });

  it("order status: each status applies once, in order", async () => {
    const order = provider.orders.create({ courier: "sicepat" });
    await provider.orders.setStatus(order.orderNo, "Dijemput");
    await provider.orders.setStatus(order.orderNo, "Dikirim");
    provider.webhooks.duplicateNext(1);
    await provider.orders.setStatus(order.orderNo, "Selesai");
    expect(statuses()).toEqual([200, 200, 200, 200]);
    expect(effects.orderStatuses).toEqual([
      `${order.orderNo}:Dijemput`,
      `${order.orderNo}:Dikirim`,
      `${order.orderNo}:Selesai`,
    ]);
  });

  it("a failing handler answers 500 and is retried on the provider's schedule until it applies, once", async () => {
    effects.failures = 2;
    const { data } = await qris().generateQris({ qris_id: 1, amount: 30_000, output_type: "string" });
    await provider.qris.pay(String(data.history_id));
    expect(statuses()).toEqual([500]);
    await provider.clock.advance(60_000);
    await provider.webhooks.settled();
    expect(statuses()).toEqual([500, 500]);
    await provider.clock.advance(5 * 60_000);
    await provider.webhooks.settled();
    expect(statuses()).toEqual([500, 500, 200]);
    expect(provider.deliveries.map((d) => d.deliveryId)).toEqual(Array(3).fill(provider.deliveries[0]?.deliveryId));
    expect(effects.paidQr).toEqual([data.history_id]);
  });
});
