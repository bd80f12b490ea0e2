import { describe, expect, expectTypeOf, it } from "vitest";
import {
  buildWebhookReceivers,
  createWebhookReceiver,
  tokenVerifier,
  WEBHOOK_SOURCES,
  WebhookConfigurationError,
  type WebhookReceiver,
  webhookPathOf,
} from "../src/webhooks.js";
import { orderStatus, qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const TOKEN = "source-configs-token-1";
const verify = [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })];
const deliveryOf = (body: unknown) =>
  webhookRequest({ url: `/webhooks?token=${TOKEN}`, rawBody: JSON.stringify(body) });

describe("buildWebhookReceivers", () => {
  it("builds a receiver of the right source from options, honouring them", async () => {
    const receivers = buildWebhookReceivers({ orders: { verify, maxBodyBytes: 2_048 } });
    const orders = receivers.orders;
    expect(orders?.source).toBe("orders");
    expect(orders?.maxBodyBytes).toBe(2_048);
    const seen: string[] = [];
    orders?.onOrderStatus("Dikirim", async (event) => {
      seen.push(String(event.cnote));
    });
    const response = await orders?.handle(deliveryOf(orderStatus()));
    expect(response?.status).toBe(200);
    expect(seen).toEqual(["JNE0123456789"]);
  });

  it("keeps a receiver it is given, handlers and all", async () => {
    const qris = createWebhookReceiver({ source: "qris", verify });
    const paid: unknown[] = [];
    qris.on("payment.success", async (event) => {
      paid.push(event.data.amount);
    });
    const receivers = buildWebhookReceivers({ qris });
    expect(receivers.qris).toBe(qris);
    expect((await receivers.qris?.handle(deliveryOf(qrisSuccess())))?.status).toBe(200);
    expect(paid).toEqual([100_001]);
  });

  it("leaves out the sources that are not configured", () => {
    const receivers = buildWebhookReceivers({ payment: { verify } });
    expect(Object.keys(receivers)).toEqual(["payment"]);
    expect(buildWebhookReceivers({})).toEqual({});
  });

  it("refuses options without verification at once, naming the fix", () => {
    expect(() => buildWebhookReceivers({ qris: { verify: [] } })).toThrow(WebhookConfigurationError);
    expect(() => buildWebhookReceivers({ qris: { verify: [] } })).toThrow(/insecureNoVerification/);
  });

  it("refuses a configuration that is not an object, with a typed error", () => {
    expect(() => buildWebhookReceivers(null as never)).toThrow(WebhookConfigurationError);
    expect(() => buildWebhookReceivers({ qris: "token" as never })).toThrow(/qris: expected a receiver/);
    expect(() => buildWebhookReceivers({ orders: null as never })).toThrow(WebhookConfigurationError);
  });

  it("types each receiver by its source", () => {
    const receivers = buildWebhookReceivers({ qris: { verify } });
    expectTypeOf(receivers.qris).toEqualTypeOf<WebhookReceiver<"qris"> | undefined>();
    expectTypeOf(receivers.orders).toEqualTypeOf<WebhookReceiver<"orders"> | undefined>();
  });
});

describe("WEBHOOK_SOURCES", () => {
  it("lists every source once, in mounting order, and cannot be changed", () => {
    expect(WEBHOOK_SOURCES).toEqual(["qris", "payment", "orders"]);
    expect(Object.isFrozen(WEBHOOK_SOURCES)).toBe(true);
  });
});

describe("webhookPathOf", () => {
  it("mounts each source at /<source> unless a path is given", () => {
    expect(WEBHOOK_SOURCES.map((source) => webhookPathOf(source))).toEqual(["/qris", "/payment", "/orders"]);
    expect(webhookPathOf("orders", { orders: "/shipping-status" })).toBe("/shipping-status");
    expect(webhookPathOf("qris", { orders: "/shipping-status" })).toBe("/qris");
  });

  it("refuses a path a router would never match, naming the source", () => {
    expect(() => webhookPathOf("qris", { qris: "qris" })).toThrow(WebhookConfigurationError);
    expect(() => webhookPathOf("qris", { qris: "qris" })).toThrow(/paths\.qris must be a path starting with "\/"/);
    expect(() => webhookPathOf("payment", { payment: 42 as never })).toThrow(/paths\.payment .* got 42/);
  });
});
