// The flat QR webhook body: a fixture core reads as payment.success, and a fake that sends it when asked.
import { QrisClient } from "@kirimbayar/core";
import { createWebhookReceiver, type QrisWebhookEvent, tokenVerifier } from "@kirimbayar/core/webhooks";
import { describe, expect, it } from "vitest";
import { createFakeProvider, createFixtures, toFlatQrisWebhook } from "../src/index.js";

const TOKEN = "flat-webhook-token";

function receiver() {
  const events: QrisWebhookEvent[] = [];
  const qris = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
  }).onAny((event) => {
    events.push(event);
  });
  return { qris, events };
}

const post = (body: unknown) =>
  new Request(`https://shop.test/webhooks/qris?token=${TOKEN}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("flat QR webhook fixtures", () => {
  it("builds a flat body core reads as payment.success, and converts an envelope event to its flat body", async () => {
    const fixtures = createFixtures({ seed: 7 });
    const { qris, events } = receiver();
    const flat = fixtures.qrisFlatWebhook({ amount: 150_042 });
    expect(flat).not.toHaveProperty("event");
    expect(flat.paid_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect((await qris.fetch(post(flat))).status).toBe(200);
    expect(events[0]).toMatchObject({ event: "payment.success", data: { amount: 150_042 } });

    const envelope = fixtures.qrisPaymentSuccess({ amount: 99_001 });
    const converted = toFlatQrisWebhook(envelope);
    expect(converted).toMatchObject({
      qris_history_id: envelope.data.qris_history_id,
      payment_status: "paid",
      amount: 99_001,
    });
    // The two shapes of one payment share the key: the second is a duplicate.
    expect((await qris.fetch(post(envelope))).status).toBe(200);
    const again = await qris.fetch(post(converted));
    expect(((await again.json()) as { message: string }).message).toMatch(/Duplicate/);
    expect(events).toHaveLength(2);
  });
});

describe("the fake provider's qrisShape setting", () => {
  it("sends flat bodies that mark the payment paid through a real receiver, and can switch shapes", async () => {
    const { qris, events } = receiver();
    const provider = createFakeProvider({
      webhooks: {
        qrisUrl: `https://shop.test/webhooks/qris?token=${TOKEN}`,
        qrisShape: "flat",
        fetch: (r) => qris.fetch(r),
      },
    });
    const client = new QrisClient({
      apiKey: provider.apiKeys.qris[0] ?? "",
      baseUrl: provider.baseUrl,
      fetch: provider.fetch,
    });
    const first = await client.generateQris({ qris_id: 1, amount: 30_000, output_type: "string" });
    await provider.qris.pay(String(first.data.history_id));
    const [delivery] = provider.deliveries;
    expect(delivery).toMatchObject({ status: 200, acknowledged: true, event: "payment.success" });
    expect(events[0]).toMatchObject({
      event: "payment.success",
      format: "flat",
      data: { qris_history_id: first.data.history_id, payment_status: "paid", amount: first.data.final_amount },
    });

    expect(provider.qris.webhookShape).toBe("flat");
    provider.qris.setWebhookShape("envelope");
    const second = await client.generateQris({ qris_id: 1, amount: 31_000, output_type: "string" });
    await provider.qris.pay(String(second.data.history_id));
    expect(events[1]).toMatchObject({ event: "payment.success", data: { qris_history_id: second.data.history_id } });
    expect(events[1]).not.toHaveProperty("format");
    expect(() => provider.qris.setWebhookShape("xml" as never)).toThrow(/envelope" or "flat/);
  });
});
