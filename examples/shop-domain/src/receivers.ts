import type { DeliveryJournal } from "@kirimbayar/core/journal";
import type { WebhookInbox } from "@kirimbayar/core/webhooks";
import {
  callbackKeyVerifier,
  createWebhookReceiver,
  type IdempotencyStore,
  tokenVerifier,
  type WebhookContext,
  type WebhookReceiver,
} from "@kirimbayar/core/webhooks";
import type { OrderRepository } from "./order-repository.js";
import type { ShopWebhookHandlers } from "./webhook-handlers.js";

/** The secrets the shop's webhook routes are verified with. */
export interface ShopWebhookSecrets {
  /** Token in the registered QRIS and order webhook URLs (`?token=`): those deliveries are not signed. */
  webhookSecret: string;
  /** The `callback_api_key` payment callbacks are signed with (HMAC-SHA256 of the raw body). */
  callbackApiKey: string;
}

/** The shop's three webhook receivers. */
export interface ShopReceivers {
  qris: WebhookReceiver<"qris">;
  payment: WebhookReceiver<"payment">;
  orders: WebhookReceiver<"orders">;
}

/**
 * How each webhook source is verified: a URL token for the QRIS and order services (they sign nothing), the
 * callback key's HMAC for the payment gateway. Shared by every framework so they all accept exactly the same.
 *
 * @example
 * createWebhookReceiver({ source: "qris", verify: shopVerifiers(config).qris });
 */
export function shopVerifiers(secrets: ShopWebhookSecrets) {
  return {
    qris: [tokenVerifier({ secrets: [secrets.webhookSecret], in: "query", name: "token" })],
    payment: [callbackKeyVerifier({ secrets: [secrets.callbackApiKey] })],
    orders: [tokenVerifier({ secrets: [secrets.webhookSecret], in: "query", name: "token" })],
  };
}

/** Options of {@link createShopReceivers} for deploy drills. */
export interface ShopReceiversDrill {
  /** The longest random wait (ms) before each handler (`SHOP_WEBHOOK_DELAY_MS`); 0 for none. */
  delayMs: number;
  /** Ends the wait early, failing the handler: the shutdown's `signal`, aborted when its grace period is over. */
  signal?: AbortSignal;
}

/**
 * Deploy drills: waits a random time up to `drill.delayMs`, as a slow handler would (a call to another service),
 * honouring the delivery's `ctx.signal` and the shutdown's signal as a handler should: it fails instead of going on
 * once its claim is about to be released.
 *
 * @example
 * await drillDelay({ delayMs: 500, signal: shutdown.signal }, ctx.signal);
 */
export async function drillDelay(drill: ShopReceiversDrill | undefined, signal: AbortSignal): Promise<void> {
  if (drill === undefined || drill.delayMs === 0) return;
  const watched = drill.signal === undefined ? signal : AbortSignal.any([signal, drill.signal]);
  watched.throwIfAborted();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, Math.random() * drill.delayMs);
    watched.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(watched.reason);
      },
      { once: true },
    );
  });
}

/**
 * Builds the three receivers with the shop's verification, one idempotency store and (for the console) the delivery
 * journal, and connects them to the shop's handlers. The Express and Hono shops mount these; the NestJS shop declares the same with decorators.
 *
 * @example
 * const receivers = createShopReceivers(config, handlers, store);
 * app.use("/webhooks", createWebhookRouter(receivers));
 */
export function createShopReceivers(
  secrets: ShopWebhookSecrets,
  handlers: ShopWebhookHandlers,
  store: IdempotencyStore,
  transactional?: { ordersWithin(transaction: unknown): OrderRepository },
  journal?: DeliveryJournal,
  drill?: ShopReceiversDrill,
  inbox?: WebhookInbox,
): ShopReceivers {
  const verify = shopVerifiers(secrets);
  const idempotency = { store, transactional: transactional !== undefined };
  // Every delivery's outcome, for the webhook console; with an inbox, each verified event is queued and answered 200,
  // and the shop's inbox worker runs the handlers below.
  const journalOption = { ...(journal === undefined ? {} : { journal }), ...(inbox === undefined ? {} : { inbox }) };
  // With transactional handlers, each webhook updates its order on the connection holding its transaction.
  const using = async (ctx: WebhookContext) => {
    await drillDelay(drill, ctx.signal);
    return transactional === undefined ? handlers : handlers.within(transactional.ordersWithin(ctx.transaction));
  };
  const qris = createWebhookReceiver({ source: "qris", verify: verify.qris, idempotency, ...journalOption });
  qris.on("payment.success", async (event, ctx) => (await using(ctx)).qrisPaid(event, ctx.origin));
  qris.on("payment.expired", async (event, ctx) => (await using(ctx)).qrisExpired(event, ctx.origin));

  const payment = createWebhookReceiver({ source: "payment", verify: verify.payment, idempotency, ...journalOption });
  payment.on("payment.callback", async (callback, ctx) => (await using(ctx)).paymentCallback(callback, ctx.origin));

  const orders = createWebhookReceiver({ source: "orders", verify: verify.orders, idempotency, ...journalOption });
  orders.on("order.status", async (change, ctx) => (await using(ctx)).orderStatus(change));
  return { qris, payment, orders };
}

/**
 * The URLs to register with the providers for a shop served at `publicBaseUrl`.
 *
 * @example
 * webhookUrls("https://shop.example", "s3cret...").qris; // "https://shop.example/webhooks/qris?token=s3cret..."
 */
export function webhookUrls(
  publicBaseUrl: string,
  webhookSecret: string,
): Record<"qris" | "payment" | "orders", string> {
  const token = encodeURIComponent(webhookSecret);
  return {
    qris: `${publicBaseUrl}/webhooks/qris?token=${token}`,
    payment: `${publicBaseUrl}/webhooks/payment`,
    orders: `${publicBaseUrl}/webhooks/orders?token=${token}`,
  };
}
