import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { PaymentGatewayClient, QrisClient, ShippingClient } from "@kirimbayar/core";
import {
  callbackKeyVerifier,
  createWebhookReceiver,
  MemoryIdempotencyStore,
  tokenVerifier,
} from "@kirimbayar/core/webhooks";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeProvider, createFixtures, toWebhookRequest } from "../src/index.js";

const CALLBACK_KEY = "callback-key-0123456789";
const TOKEN = "qris-webhook-token-42";
const customer = { name: "Rina", email: "rina@example.co.id", phone: "081377788899" };

function qrisReceiver() {
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
    idempotency: { store: new MemoryIdempotencyStore() },
  });
  return receiver;
}

describe("end-to-end lifecycles with core's receivers (in-process, no sockets)", () => {
  it("create → pay → signed callback → status PAID", async () => {
    const receiver = createWebhookReceiver({
      source: "payment",
      verify: [callbackKeyVerifier({ secrets: [CALLBACK_KEY] })],
      idempotency: { store: new MemoryIdempotencyStore() },
    });
    const seen: unknown[] = [];
    receiver.on("payment.callback", async (event) => {
      seen.push(event);
    });
    const provider = createFakeProvider({ webhooks: { fetch: (request) => receiver.fetch(request) } });
    const client = new PaymentGatewayClient({
      apiKey: provider.apiKeys.payment[0] ?? "",
      baseUrl: provider.baseUrl,
      fetch: provider.fetch,
    });
    const created = await client.createPayment({
      order_id: "INV-2026-001",
      payment_type: "bank_transfer",
      channel_code: "MANDIRI",
      amount: 250_000,
      customer,
      items: [{ name: "Sepatu", quantity: 2, price: 125_000 }],
      callback_url: "https://shop.example.co.id/webhooks/payment",
      callback_api_key: CALLBACK_KEY,
    });
    const id = String(created.data.payment_id);
    await provider.payments.pay(id);
    expect(seen).toEqual([
      expect.objectContaining({ payment_id: id, order_id: "INV-2026-001", status: "PAID", amount: 250_000 }),
    ]);
    expect(provider.deliveries).toHaveLength(1);
    expect(provider.deliveries[0]).toMatchObject({ status: 200, acknowledged: true, event: "payment.callback" });
    expect((await client.getPaymentStatus(id)).data.status).toBe("PAID");
  });

  it("a callback signed with another key is refused with 401 and retried, never reaching the handler", async () => {
    const receiver = createWebhookReceiver({
      source: "payment",
      verify: [callbackKeyVerifier({ secrets: ["the-real-key-000"] })],
    });
    let calls = 0;
    receiver.on("payment.callback", async () => {
      calls += 1;
    });
    const provider = createFakeProvider({ webhooks: { fetch: (request) => receiver.fetch(request) } });
    const client = new PaymentGatewayClient({
      apiKey: provider.apiKeys.payment[0] ?? "",
      baseUrl: provider.baseUrl,
      fetch: provider.fetch,
    });
    const { data } = await client.createPayment({
      order_id: "INV-2",
      payment_type: "bank_transfer",
      channel_code: "BRI",
      amount: 10_000,
      customer,
      items: [{ name: "x", quantity: 1, price: 10_000 }],
      callback_url: "https://shop.example.co.id/webhooks/payment",
      callback_api_key: "some-other-key-111",
    });
    await provider.payments.pay(String(data.payment_id));
    await provider.clock.advance(30 * 60_000);
    expect(provider.deliveries.map((d) => d.status)).toEqual([401, 401, 401, 401]);
    expect(calls).toBe(0);
  });

  it("generate → expire → payment.expired after 15 minutes on the clock", async () => {
    const receiver = qrisReceiver();
    const expired: unknown[] = [];
    receiver.on("payment.expired", async (event) => {
      expired.push(event.data);
    });
    const provider = createFakeProvider({
      webhooks: {
        qrisUrl: `https://shop.example.co.id/webhooks/qris?token=${TOKEN}`,
        fetch: (request) => receiver.fetch(request),
      },
    });
    const qris = new QrisClient({
      apiKey: provider.apiKeys.qris[0] ?? "",
      baseUrl: provider.baseUrl,
      fetch: provider.fetch,
    });
    const { data } = await qris.generateQris({ qris_id: 1, amount: 45_000, output_type: "string" });
    await provider.clock.advance(14 * 60_000);
    expect(expired).toEqual([]);
    await provider.clock.advance(60_000);
    expect(expired).toEqual([
      expect.objectContaining({ qris_history_id: data.history_id, status: "expired", amount: data.final_amount }),
    ]);
    expect((await qris.getQrisPaymentStatus(String(data.history_id))).data.payment_status).toBe("expired");
  });

  it("a receiver failing twice sees retries at 1 and 5 minutes, and the third attempt succeeds", async () => {
    const receiver = qrisReceiver();
    const attempts: number[] = [];
    const provider = createFakeProvider({
      webhooks: {
        qrisUrl: `https://shop.example.co.id/webhooks/qris?token=${TOKEN}`,
        fetch: (request) => receiver.fetch(request),
      },
    });
    receiver.on("payment.success", async () => {
      attempts.push(provider.clock.now());
      if (attempts.length <= 2) throw new Error("database is down");
    });
    const qris = new QrisClient({
      apiKey: provider.apiKeys.qris[0] ?? "",
      baseUrl: provider.baseUrl,
      fetch: provider.fetch,
    });
    const { data } = await qris.generateQris({ qris_id: 1, amount: 99_000, output_type: "string" });
    const start = provider.clock.now();
    await provider.qris.pay(String(data.history_id));
    await provider.clock.advance(60 * 60_000);
    expect(attempts.map((at) => (at - start) / 60_000)).toEqual([0, 1, 6]);
    expect(provider.deliveries.map((d) => [d.attempt, d.status, d.acknowledged])).toEqual([
      [1, 500, false],
      [2, 500, false],
      [3, 200, true],
    ]);
  });

  it("a duplicate delivery is acknowledged but handled once", async () => {
    const receiver = qrisReceiver();
    let handled = 0;
    receiver.on("payment.success", async () => {
      handled += 1;
    });
    const provider = createFakeProvider({
      webhooks: {
        qrisUrl: `https://shop.example.co.id/webhooks/qris?token=${TOKEN}`,
        fetch: (request) => receiver.fetch(request),
      },
    });
    const qris = new QrisClient({
      apiKey: provider.apiKeys.qris[0] ?? "",
      baseUrl: provider.baseUrl,
      fetch: provider.fetch,
    });
    const { data } = await qris.generateQris({ qris_id: 1, amount: 30_000, output_type: "string" });
    provider.webhooks.duplicateNext();
    await provider.qris.pay(String(data.history_id));
    expect(handled).toBe(1);
    expect(provider.deliveries.map((d) => [d.status, d.duplicate])).toEqual([
      [200, false],
      [200, true],
    ]);
  });

  it("order statuses delivered out of order all reach the receiver once", async () => {
    const receiver = createWebhookReceiver({
      source: "orders",
      insecureNoVerification: true,
      logger: { warn() {}, error() {}, debug() {} },
    });
    const statuses: string[] = [];
    receiver.on("order.status", async (event) => {
      statuses.push(String(event.status));
    });
    const provider = createFakeProvider({
      webhooks: { ordersUrl: "https://shop.example.co.id/webhooks/orders", fetch: (r) => receiver.fetch(r) },
    });
    const order = provider.orders.create();
    provider.webhooks.hold();
    for (const status of ["Dijemput", "Dikirim", "Selesai"]) await provider.orders.setStatus(order.orderNo, status);
    await provider.webhooks.release("reverse");
    expect(statuses).toEqual(["Selesai", "Dikirim", "Dijemput"]);
    const shipping = new ShippingClient({
      apiKey: provider.apiKeys.shipping[0] ?? "",
      baseUrl: provider.baseUrl,
      fetch: provider.fetch,
      cache: false,
    });
    const tracked = await shipping.trackWaybill({
      awb: order.cnote,
      courier: "jne",
      last_phone_number: order.receiverPhone.slice(-5),
    });
    expect(tracked.data.delivered).toBe(true);
  });
});

describe("toWebhookRequest builds requests core's receivers accept", () => {
  const f = createFixtures({ seed: "requests" });

  it("QR events with the URL token, via handle() and fetch()", async () => {
    const receiver = qrisReceiver();
    const got: string[] = [];
    receiver.onAny(async (event) => {
      got.push(event.event);
    });
    const success = toWebhookRequest(f.qrisPaymentSuccess({ amount: 100_001 }), {
      url: "http://localhost:3000/webhooks/qris",
      token: TOKEN,
    });
    expect(success.http.url).toBe(`/webhooks/qris?token=${TOKEN}`);
    expect((await receiver.handle(success.http)).status).toBe(200);
    const expired = toWebhookRequest(f.qrisPaymentExpired(), {
      url: "http://localhost:3000/webhooks/qris",
      token: TOKEN,
    });
    expect((await receiver.fetch(expired.toRequest())).status).toBe(200);
    expect(got).toEqual(["payment.success", "payment.expired"]);
    const wrong = toWebhookRequest(f.qrisPaymentSuccess(), {
      url: "http://localhost:3000/webhooks/qris",
      token: "guess",
    });
    expect((await receiver.handle(wrong.http)).status).toBe(401);
  });

  it("payment callbacks signed hex (default), base64 or plain; a tampered body fails", async () => {
    const hmacReceiver = createWebhookReceiver({
      source: "payment",
      verify: [callbackKeyVerifier({ secrets: [CALLBACK_KEY] })],
    });
    hmacReceiver.on("payment.callback", async () => {});
    const url = "http://localhost:3000/webhooks/payment";
    const body = f.paymentCallback();
    expect((await hmacReceiver.handle(toWebhookRequest(body, { url, callbackApiKey: CALLBACK_KEY }).http)).status).toBe(
      200,
    );
    expect(
      (
        await hmacReceiver.handle(
          toWebhookRequest(f.paymentCallback(), { url, callbackApiKey: CALLBACK_KEY, encoding: "base64" }).http,
        )
      ).status,
    ).toBe(200);
    const signed = toWebhookRequest(f.paymentCallback(), { url, callbackApiKey: CALLBACK_KEY });
    const tampered = {
      ...signed.http,
      rawBody: new TextEncoder().encode(signed.rawBody.replace(/"amount":\d+/, '"amount":1')),
    };
    expect((await hmacReceiver.handle(tampered)).status).toBe(401);
    const plainReceiver = createWebhookReceiver({
      source: "payment",
      verify: [callbackKeyVerifier({ secrets: [CALLBACK_KEY], mode: "plain" })],
    });
    plainReceiver.on("payment.callback", async () => {});
    expect(
      (
        await plainReceiver.handle(
          toWebhookRequest(f.paymentCallback(), { url, callbackApiKey: CALLBACK_KEY, callbackAuth: "plain" }).http,
        )
      ).status,
    ).toBe(200);
  });
});

describe("the whole flow over real HTTP (fake server ↔ receiver server on 127.0.0.1)", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  });

  it("generate over HTTP, pay, and the webhook arrives at a listening receiver", async () => {
    const receiver = qrisReceiver();
    const paid: unknown[] = [];
    receiver.on("payment.success", async (event) => {
      paid.push(event.data.qris_history_id);
    });
    const app = createServer(async (incoming, outgoing) => {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const response = await receiver.handle({
        method: incoming.method ?? "POST",
        url: incoming.url ?? "/",
        headers: incoming.headers,
        rawBody: new Uint8Array(Buffer.concat(chunks)),
      });
      outgoing.writeHead(response.status, response.headers).end(response.body);
    });
    servers.push(app);
    await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    const provider = createFakeProvider({ webhooks: { qrisUrl: `${appUrl}/webhooks/qris?token=${TOKEN}` } });
    const server = await provider.listen({ port: 0, host: "127.0.0.1" });
    try {
      const qris = new QrisClient({ apiKey: provider.apiKeys.qris[0] ?? "", baseUrl: server.url });
      const { data } = await qris.generateQris({ qris_id: 1, amount: 60_000, output_type: "string" });
      await provider.qris.pay(String(data.history_id));
      expect(paid).toEqual([data.history_id]);
      expect(provider.deliveries[0]).toMatchObject({ status: 200, acknowledged: true });
    } finally {
      await server.close();
    }
  });
});
