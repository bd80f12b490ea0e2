// The reconciler against the stateful fake provider: a payment whose every webhook delivery failed (the shop's
// database was down for longer than the provider retries) is found on the status endpoint and applied once.
import { createReconciler, PaymentGatewayClient, QrisClient } from "@kirimbayar/core";
import { callbackKeyVerifier, createWebhookReceiver, tokenVerifier } from "@kirimbayar/core/webhooks";
import { describe, expect, it } from "vitest";
import { createFakeProvider } from "../src/index.js";
import { validPayment } from "./helpers.js";

const TOKEN = "qris-webhook-token-42";
const CALLBACK_KEY = "callback-key-0123456789";

function shop() {
  const state = { databaseDown: false, paid: [] as { id: string; origin: string }[] };
  const qris = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
    logger: { error: () => {}, warn: () => {} },
  }).on("payment.success", async (event, ctx) => {
    if (state.databaseDown) throw new Error("database is down");
    state.paid.push({ id: String(event.data.qris_history_id), origin: ctx.origin });
  });
  const payment = createWebhookReceiver({
    source: "payment",
    verify: [callbackKeyVerifier({ secrets: [CALLBACK_KEY] })],
    logger: { error: () => {}, warn: () => {} },
  }).on("payment.callback", async (event, ctx) => {
    if (state.databaseDown) throw new Error("database is down");
    state.paid.push({ id: String(event.payment_id), origin: ctx.origin });
  });
  const provider = createFakeProvider({
    webhooks: {
      qrisUrl: `https://shop.example.co.id/webhooks/qris?token=${TOKEN}`,
      fetch: (request) =>
        new URL(request.url).pathname.endsWith("/qris") ? qris.fetch(request) : payment.fetch(request),
    },
  });
  const clients = {
    qris: new QrisClient({ apiKey: provider.apiKeys.qris[0] ?? "", baseUrl: provider.baseUrl, fetch: provider.fetch }),
    payment: new PaymentGatewayClient({
      apiKey: provider.apiKeys.payment[0] ?? "",
      baseUrl: provider.baseUrl,
      fetch: provider.fetch,
    }),
  };
  const reconciler = createReconciler({ receivers: { qris, payment }, clients });
  return { state, provider, clients, reconciler };
}

describe("reconciler against the fake provider", () => {
  it("applies a QR payment whose 4 webhook deliveries all failed, once, and reports the delivered one as already applied", async () => {
    const { state, provider, clients, reconciler } = shop();
    const missed = await clients.qris.generateQris({ qris_id: 1, amount: 75_000, output_type: "string" });
    state.databaseDown = true;
    await provider.qris.pay(String(missed.data.history_id));
    await provider.clock.advance(30 * 60_000); // past every retry: now, +1, +5, +15 min
    state.databaseDown = false;
    const delivered = await clients.qris.generateQris({ qris_id: 1, amount: 20_000, output_type: "string" });
    await provider.qris.pay(String(delivered.data.history_id));
    const missedAttempts = provider.deliveries.filter((d) => d.status === 500);
    expect(missedAttempts).toHaveLength(4);
    expect(state.paid.map((p) => p.origin)).toEqual(["webhook"]);

    const results = await reconciler.reconcile([
      { source: "qris", history_id: missed.data.history_id ?? "", amount: missed.data.final_amount ?? undefined },
      { source: "qris", history_id: delivered.data.history_id ?? "" },
    ]);
    expect(results.map((r) => r.outcome)).toEqual(["applied", "already_applied"]);
    expect(state.paid).toEqual([
      { id: String(delivered.data.history_id), origin: "webhook" },
      { id: String(missed.data.history_id), origin: "reconciliation" },
    ]);
  });

  it("applies a gateway payment whose callbacks all failed, and its late redelivery is a duplicate", async () => {
    const { state, provider, clients, reconciler } = shop();
    const { data } = await clients.payment.createPayment(
      validPayment({
        order_id: "INV-RECON-1",
        callback_url: "https://shop.example.co.id/webhooks/payment",
        callback_api_key: CALLBACK_KEY,
      }) as Parameters<PaymentGatewayClient["createPayment"]>[0],
    );
    const id = String(data.payment_id);
    state.databaseDown = true;
    await provider.payments.pay(id);
    await provider.clock.advance(30 * 60_000);
    state.databaseDown = false;
    const [result] = await reconciler.reconcile([{ source: "payment", payment_id: id }]);
    expect(result).toMatchObject({ outcome: "applied", providerStatus: "PAID" });
    expect(state.paid).toEqual([{ id, origin: "reconciliation" }]);
  });
});
