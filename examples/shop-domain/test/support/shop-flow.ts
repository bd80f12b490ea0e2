// The whole shop flow against the fake provider over real HTTP on loopback, as one suite that every framework's
// example runs (like the adapters' conformance suite): the same requests must give the same answers and the same
// order history in Express, Hono and NestJS.
import { verifyQrisCrc } from "@kirimbayar/core";
import { createFakeProvider, type FakeProvider, type RunningServer } from "@kirimbayar/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadShopConfig, type ShopConfig } from "../../src/config.js";
import type { Order } from "../../src/order.js";
import { webhookUrls } from "../../src/receivers.js";
import type { UnmatchedWebhook } from "../../src/webhook-handlers.js";

/** A shop started by one framework's example. */
export interface StartedShop {
  url: string;
  /** Webhooks that matched no order. */
  unmatched(): readonly UnmatchedWebhook[];
  close(): Promise<void>;
}

/** Starts one framework's shop with a configuration. */
export type StartShop = (config: ShopConfig) => Promise<StartedShop>;

const WEBHOOK_SECRET = "webhook-secret-for-tests-0123";
const CALLBACK_API_KEY = "callback-key-for-tests-0123456";
/** Gambir, Jakarta Pusat: the warehouse. */
const ORIGIN_ID = 15_201_01;

/** The shop's environment pointing at a running fake provider. */
export function fakeProviderEnv(provider: FakeProvider, providerUrl: string): Record<string, string> {
  return {
    PORT: "0",
    HOST: "127.0.0.1",
    KIRIMBAYAR_PAYMENT_API_KEY: provider.apiKeys.payment[0] ?? "",
    KIRIMBAYAR_PAYMENT_BASE_URL: providerUrl,
    KIRIMBAYAR_QRIS_API_KEY: provider.apiKeys.qris[0] ?? "",
    KIRIMBAYAR_QRIS_ID: "1",
    KIRIMBAYAR_CALLBACK_API_KEY: CALLBACK_API_KEY,
    KIRIMBAYAR_SHIPPING_API_KEY: provider.apiKeys.shipping[0] ?? "",
    KIRIMBAYAR_SHIPPING_BASE_URL: providerUrl,
    KIRIMBAYAR_ORDERS_API_KEY: provider.apiKeys.orders[0] ?? "",
    KIRIMBAYAR_ORDERS_BASE_URL: providerUrl,
    KIRIMBAYAR_WEBHOOK_SECRET: WEBHOOK_SECRET,
    SHOP_ORIGIN_ID: String(ORIGIN_ID),
  };
}

interface JsonResponse<T = unknown> {
  status: number;
  body: T;
}

async function call<T = { data: unknown }>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<JsonResponse<T>> {
  const response = await fetch(
    `${base}${path}`,
    body === undefined
      ? { method }
      : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
  );

  return { status: response.status, body: (await response.json()) as T };
}

/** What `POST /shipping/quote` answers. */
interface QuoteAnswer {
  data: { courier_code: string; service: string; cost: number; source: string; fetched_at: string | null }[];
  missing: { courier_code: string; reason: string }[];
}

const cart = {
  customer: { name: "Sari Wulandari", email: "sari@example.test", phone: "081234567890" },
  items: [
    { name: "Kopi Gayo 250 g", quantity: 2, price: 85_000, weight: 250 },
    { name: "Gula Aren 500 g", quantity: 1, price: 32_000, weight: 500 },
  ],
};

/**
 * Runs the full shop flow against `start`: destinations, quotes, QRIS orders paid (with a duplicate delivery),
 * shipped and delivered, a QR code that expires, a virtual-account payment, and bad input.
 *
 * @example
 * describeShopFlow("express", async (config) => { const shop = await startShop(config); return { ...shop, unmatched: () => shop.runtime.handlers.unmatched } });
 */
export function describeShopFlow(
  framework: string,
  start: StartShop,
  variant: { name: string; env: () => Promise<Record<string, string>> } | undefined = undefined,
): void {
  const title = variant === undefined ? "" : ` (${variant.name})`;
  describe(`${framework} shop against the fake provider${title}`, () => {
    let provider: FakeProvider;
    let server: RunningServer;
    let shop: StartedShop;

    beforeEach(async () => {
      provider = createFakeProvider();
      server = await provider.listen();
      const extraEnv = variant === undefined ? {} : await variant.env();
      shop = await start(loadShopConfig({ ...fakeProviderEnv(provider, server.url), ...extraEnv }));
      provider.qris.setWebhookUrl(webhookUrls(shop.url, WEBHOOK_SECRET).qris);
      // A shop on an embedded database starts its first PGlite (initdb in WebAssembly): seconds on a busy machine.
    }, 60_000);

    afterEach(async () => {
      await provider.webhooks.settled();
      await shop.close();
      await server.close();
    });

    const get = <T>(path: string) => call<T>(shop.url, "GET", path);
    const post = <T>(path: string, body: unknown) => call<T>(shop.url, "POST", path, body);

    async function braga(): Promise<number> {
      const found = await get<{ data: { id: number; label: string }[] }>("/shipping/destinations?search=braga");
      expect(found.status).toBe(200);
      const destination = found.body.data.find((d) => d.label.startsWith("BRAGA"));
      expect(destination).toBeDefined();
      return destination!.id;
    }

    async function placeOrder() {
      const created = await post<{
        data: { order: Order; qris: { qris_string: string; final_amount: number; image_data_url: string } };
      }>("/orders", { ...cart, destination_id: await braga(), courier: "sicepat", service: "REG" });
      expect(created.status).toBe(201);
      return created.body.data;
    }

    it("registers its order webhook with the order service at start", () => {
      expect(provider.orders.webhookUrl).toBe(`${shop.url}/webhooks/orders?token=${WEBHOOK_SECRET}`);
    });

    it("quotes several couriers with the cheapest and the fastest marked and the ETD parsed", async () => {
      const quote = await post<{
        data: {
          courier_code: string;
          cost: number;
          cheapest: boolean;
          fastest: boolean;
          etd: { max: number | null };
          source: string;
          fetched_at: string | null;
        }[];
        missing: unknown[];
      }>("/shipping/quote", { destination_id: await braga(), weight: 1_000, couriers: ["jne", "sicepat", "pos"] });
      expect(quote.status).toBe(200);
      const options = quote.body.data;
      expect(new Set(options.map((o) => o.courier_code))).toEqual(new Set(["jne", "sicepat", "pos"]));
      const cheapest = options.filter((o) => o.cheapest);
      const fastest = options.filter((o) => o.fastest);
      expect(cheapest).toHaveLength(1);
      expect(fastest).toHaveLength(1);
      expect(cheapest[0]?.cost).toBe(Math.min(...options.map((o) => o.cost)));
      const quickest = Math.min(...options.map((o) => o.etd.max ?? Number.POSITIVE_INFINITY));
      expect(fastest[0]?.etd.max).toBe(quickest);
      expect(options.map((o) => o.cost)).toEqual([...options.map((o) => o.cost)].sort((a, b) => a - b));
      expect(quote.body.missing).toEqual([]);
      expect(options.every((o) => o.source === "provider" && !Number.isNaN(Date.parse(o.fetched_at ?? "")))).toBe(true);
    });

    it("quotes within its budget while one courier is slow and one fails; the late price serves the next view and the order", async () => {
      provider.setCourierFault("sicepat", { delayMs: 1_500 });
      provider.setCourierFault("tiki", { status: 503 });
      const destination_id = await braga();
      const calls = () => provider.requests.filter((r) => r.path === "/api/v1/calculate/domestic-cost").length;
      const started = performance.now();
      const quote = await post<QuoteAnswer>("/shipping/quote", { destination_id, weight: 1_000 });
      // The shop's budget is 800 ms; the slow courier answers after 1.5 s. Slack for a busy machine.
      expect(performance.now() - started).toBeLessThan(1_300);
      expect(quote.status).toBe(200);
      expect(new Set(quote.body.data.map((o) => o.courier_code))).toEqual(new Set(["jne", "pos"]));
      expect(quote.body.missing).toEqual([
        { courier_code: "sicepat", reason: "pending" },
        { courier_code: "tiki", reason: "failed" },
      ]);

      await new Promise((resolve) => setTimeout(resolve, 1_600));
      const before = calls();
      const again = await post<QuoteAnswer>("/shipping/quote", {
        destination_id,
        weight: 1_000,
        couriers: ["sicepat"],
      });
      expect(again.body.data.length).toBeGreaterThan(0);
      expect(again.body.data.every((o) => o.courier_code === "sicepat" && o.source === "cache")).toBe(true);
      const created = await post<{ data: { order: Order } }>("/orders", {
        ...cart,
        destination_id,
        courier: "sicepat",
        service: "REG",
      });
      expect(created.status).toBe(201);
      const reg = again.body.data.find((o) => o.service === "REG");
      expect(created.body.data.order.shipping.cost).toBe(reg?.cost);
      expect(calls()).toBe(before);

      const failing = await post<{ error: { code: string; message: string } }>("/orders", {
        ...cart,
        destination_id,
        courier: "tiki",
        service: "REG",
      });
      expect(failing.status).toBe(502);
      expect(failing.body.error.message).toBe("Courier tiki has no price right now (failed): try again in a moment");
      const unknown = await post<{ error: { issues: { path: string }[] } }>("/orders", {
        ...cart,
        destination_id,
        courier: "paxel",
        service: "REG",
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.issues.map((i) => i.path)).toEqual(["courier"]);
    });

    it("takes an order by QRIS, ignores a duplicate delivery, then ships and delivers it", async () => {
      const { order, qris } = await placeOrder();
      expect(order).toMatchObject({ status: "awaiting_payment", subtotal: 202_000, weight: 1_000 });
      expect(order.total).toBe(order.subtotal + order.shipping.cost);
      expect(order.shipping).toMatchObject({ courier_code: "sicepat", service: "REG" });
      expect(verifyQrisCrc(qris.qris_string)).toBe(true);
      expect(qris.final_amount).toBeGreaterThan(order.total); // the unique code
      expect(qris.image_data_url).toMatch(/^data:image\/png;base64,/);

      const payment = order.payments[0];
      if (payment?.method !== "qris") throw new Error("expected a QRIS payment");
      provider.webhooks.duplicateNext(1);
      await provider.qris.pay(payment.history_id);
      await provider.webhooks.settled();

      const deliveries = provider.deliveries.filter((d) => d.event === "payment.success");
      expect(deliveries).toHaveLength(2);
      expect(deliveries.map((d) => [d.status, d.acknowledged])).toEqual([
        [200, true],
        [200, true],
      ]);
      let current = (await get<{ data: Order }>(`/orders/${order.id}`)).body.data;
      expect(current.status).toBe("paid");
      expect(current.events.filter((e) => e.type === "payment.success")).toHaveLength(1);

      provider.orders.create({ order_no: order.id, courier: "sicepat", destination: order.shipping.destination_id });
      for (const status of ["Dijemput", "Dikirim"] as const) await provider.orders.setStatus(order.id, status);
      current = (await get<{ data: Order }>(`/orders/${order.id}`)).body.data;
      expect(current.status).toBe("shipped");
      expect(current.cnote).toBe(provider.orders.get(order.id)?.cnote);

      await provider.orders.setStatus(order.id, "Selesai");
      current = (await get<{ data: Order }>(`/orders/${order.id}`)).body.data;
      expect(current.status).toBe("delivered");
      expect(current.events.map((e) => e.type)).toEqual([
        "order.created",
        "qris.generated",
        "payment.success",
        "order.status",
        "order.status",
        "order.status",
      ]);
      expect(shop.unmatched()).toEqual([]);
    });

    it("expires an order whose QR code is never paid", async () => {
      const { order } = await placeOrder();
      await provider.clock.advance(16 * 60_000);
      await provider.webhooks.settled();
      const expired = provider.deliveries.find((d) => d.event === "payment.expired");
      expect(expired?.status).toBe(200);
      const current = (await get<{ data: Order }>(`/orders/${order.id}`)).body.data;
      expect(current.status).toBe("expired");
      expect(current.payments[0]?.state).toBe("expired");
    });

    it("finds a QR payment whose 4 webhook deliveries all failed by reconciliation, and applies it once", async () => {
      // A shop that asks the provider about pending payments every 100 ms instead of every minute.
      await shop.close();
      shop = await start(loadShopConfig({ ...fakeProviderEnv(provider, server.url), SHOP_RECONCILE_EVERY_MS: "100" }));
      const { order } = await placeOrder();
      const payment = order.payments[0];
      if (payment?.method !== "qris") throw new Error("expected a QRIS payment");
      // The shop is unreachable for the provider (nothing listens on port 9) for longer than it retries.
      provider.qris.setWebhookUrl(`http://127.0.0.1:9/webhooks/qris?token=${WEBHOOK_SECRET}`);
      await provider.qris.pay(payment.history_id);
      await provider.clock.advance(30 * 60_000);
      await provider.webhooks.settled();
      const attempts = provider.deliveries.filter((d) => d.event === "payment.success");
      expect(attempts).toHaveLength(4);
      expect(attempts.every((d) => d.acknowledged === false)).toBe(true);

      let current = (await get<{ data: Order }>(`/orders/${order.id}`)).body.data;
      const deadline = Date.now() + 5_000;
      while (current.status !== "paid" && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        current = (await get<{ data: Order }>(`/orders/${order.id}`)).body.data;
      }
      expect(current.status).toBe("paid");
      const paidEvents = current.events.filter((e) => e.type === "payment.success");
      expect(paidEvents).toHaveLength(1);
      expect(paidEvents[0]?.detail).toMatch(/found by reconciliation/);
      // Later runs find it applied already: still one payment event.
      await new Promise((resolve) => setTimeout(resolve, 300));
      current = (await get<{ data: Order }>(`/orders/${order.id}`)).body.data;
      expect(current.events.filter((e) => e.type === "payment.success")).toHaveLength(1);
    });

    it("takes a virtual-account payment whose signed callback marks the order paid", async () => {
      const { order } = await placeOrder();
      const va = await post<{ data: { payment: { payment_id: string; va_number: string; amount: number } } }>(
        `/orders/${order.id}/pay-by-va`,
        { bank_code: "BCA" },
      );
      expect(va.status).toBe(201);
      expect(va.body.data.payment.amount).toBe(order.total);
      expect(va.body.data.payment.va_number).toMatch(/^\d+$/);
      const again = await post<{ error: { code: string } }>(`/orders/${order.id}/pay-by-va`, { bank_code: "BNI" });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe("conflict");

      await provider.payments.pay(va.body.data.payment.payment_id);
      await provider.webhooks.settled();
      const callback = provider.deliveries.find((d) => d.event === "payment.callback");
      expect(callback?.status).toBe(200);
      const current = (await get<{ data: Order }>(`/orders/${order.id}`)).body.data;
      expect(current.status).toBe("paid");
      expect(current.payments.map((p) => `${p.method}:${p.state}`)).toEqual(["qris:pending", "va:paid"]);
    });

    it("refuses webhooks that fail verification, and changes nothing", async () => {
      const { order } = await placeOrder();
      const forged = await fetch(`${shop.url}/webhooks/orders?token=not-the-secret-at-all`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ order_no: order.id, cnote: "FORGED1", status: "Selesai" }),
      });
      expect(forged.status).toBe(401);
      expect(await forged.text()).not.toContain(WEBHOOK_SECRET);
      const unsigned = await fetch(`${shop.url}/webhooks/payment`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ payment_id: "KPAY-1", status: "PAID", amount: order.total }),
      });
      expect(unsigned.status).toBe(401);
      const current = (await get<{ data: Order }>(`/orders/${order.id}`)).body.data;
      expect(current.status).toBe("awaiting_payment");
      expect(current.events).toHaveLength(2);
    });

    it("answers bad requests with every problem listed, before calling the provider", async () => {
      const before = provider.requests.length;
      const invalid = await post<{ error: { code: string; issues: { path: string }[] } }>("/orders", {
        customer: { name: "", email: "not-an-email", phone: "12" },
        items: [],
        destination_id: -1,
        courier: "jne",
        service: "REG",
      });
      expect(invalid.status).toBe(400);
      expect(invalid.body.error.code).toBe("invalid_request");
      expect(invalid.body.error.issues.map((i) => i.path).sort()).toEqual(
        ["customer.email", "customer.name", "customer.phone", "destination_id", "items"].sort(),
      );
      const notJson = await fetch(`${shop.url}/shipping/quote`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{not json",
      });
      expect(notJson.status).toBe(400);
      expect((await get("/shipping/destinations?search=a")).status).toBe(400);
      expect(provider.requests.length).toBe(before);

      const missing = await get<{ error: { code: string } }>("/orders/ORD-999999");
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe("not_found");
      const wrongService = await post<{ error: { code: string } }>("/orders", {
        ...cart,
        destination_id: await braga(),
        courier: "jne",
        service: "NOPE",
      });
      expect(wrongService.status).toBe(400);
    });
  });
}
