// One small shop per framework, each with the kirimbayar adapter mounted at /webhooks (QRIS, payment callbacks, order
// status; verified and deduplicated), and the helper of @kirimbayar/testing that turns it into the fake's transport.
import "reflect-metadata";
import {
  callbackKeyVerifier,
  MemoryIdempotencyStore,
  type OrderStatusWebhook,
  type PaymentCallback,
  type QrisPaymentSuccessEvent,
  tokenVerifier,
  type WebhookReceiver,
} from "@kirimbayar/core/webhooks";
import { createWebhookRouter } from "@kirimbayar/express";
import { createWebhookPlugin } from "@kirimbayar/fastify";
import { createWebhookApp } from "@kirimbayar/hono";
import { KirimbayarModule, OnOrderStatus, OnPaymentCallback, OnQrisEvent } from "@kirimbayar/nestjs";
import { expressFetch } from "@kirimbayar/testing/express";
import { fastifyFetch } from "@kirimbayar/testing/fastify";
import { honoFetch } from "@kirimbayar/testing/hono";
import { nestFetch } from "@kirimbayar/testing/nestjs";
import { Inject, Injectable } from "@nestjs/common";
import { FastifyAdapter } from "@nestjs/platform-fastify";
import { Test } from "@nestjs/testing";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";

export const QRIS_TOKEN = "qris-token-0123456789";
export const ORDERS_TOKEN = "orders-token-0123456789";
export const CALLBACK_KEY = "callback-key-0123456789";

/** What the shop's handlers did, and how many of the next calls should fail (a database that is down). */
export class Effects {
  paidQr: string[] = [];
  paidPayments: string[] = [];
  orderStatuses: string[] = [];
  failures = 0;

  async run(effect: () => void): Promise<void> {
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error("database unavailable");
    }
    effect();
  }

  qris(event: QrisPaymentSuccessEvent): Promise<void> {
    return this.run(() => this.paidQr.push(String(event.data.qris_history_id)));
  }

  payment(callback: PaymentCallback): Promise<void> {
    return this.run(() => this.paidPayments.push(`${callback.payment_id}:${callback.status}`));
  }

  order(change: OrderStatusWebhook): Promise<void> {
    return this.run(() => this.orderStatuses.push(`${change.order_no}:${change.status}`));
  }
}

/** The three sources, verified as a shop verifies them, each with its own dedup store. */
function sources() {
  return {
    qris: {
      verify: [tokenVerifier({ secrets: [QRIS_TOKEN], in: "query" as const, name: "token" })],
      idempotency: { store: new MemoryIdempotencyStore() },
    },
    payment: {
      verify: [callbackKeyVerifier({ secrets: [CALLBACK_KEY] })],
      idempotency: { store: new MemoryIdempotencyStore() },
    },
    orders: {
      verify: [tokenVerifier({ secrets: [ORDERS_TOKEN], in: "query" as const, name: "token" })],
      idempotency: { store: new MemoryIdempotencyStore() },
    },
  };
}

interface Receivers {
  qris?: WebhookReceiver<"qris">;
  payment?: WebhookReceiver<"payment">;
  orders?: WebhookReceiver<"orders">;
}

function attach(receivers: Receivers, effects: Effects): void {
  receivers.qris?.on("payment.success", (event) => effects.qris(event));
  receivers.payment?.on("payment.callback", (callback) => effects.payment(callback));
  receivers.orders?.on("order.status", (change) => effects.order(change));
}

/** A shop app and the `fetch` the fake delivers through. */
export interface InProcessShop {
  fetch: (request: Request) => Promise<Response>;
  close(): Promise<void>;
}

/** How to build one framework's shop. */
export interface Framework {
  name: string;
  start(effects: Effects): Promise<InProcessShop>;
}

const EFFECTS = Symbol("effects");

@Injectable()
class ShopWebhooks {
  constructor(@Inject(EFFECTS) private readonly effects: Effects) {}

  @OnQrisEvent("payment.success")
  paid(event: QrisPaymentSuccessEvent): Promise<void> {
    return this.effects.qris(event);
  }

  @OnPaymentCallback()
  callback(callback: PaymentCallback): Promise<void> {
    return this.effects.payment(callback);
  }

  @OnOrderStatus()
  order(change: OrderStatusWebhook): Promise<void> {
    return this.effects.order(change);
  }
}

async function nestShop(effects: Effects, platform: "express" | "fastify"): Promise<InProcessShop> {
  const moduleRef = await Test.createTestingModule({
    imports: [KirimbayarModule.forRoot({ webhooks: sources() })],
    providers: [ShopWebhooks, { provide: EFFECTS, useValue: effects }],
  }).compile();
  const app =
    platform === "fastify"
      ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
      : moduleRef.createNestApplication({ rawBody: true, logger: false });
  await app.init();
  return { fetch: nestFetch(app), close: () => app.close() };
}

/** Every framework the helpers serve, each through its own entry of @kirimbayar/testing. */
export const frameworks: Framework[] = [
  {
    name: "Express (expressFetch)",
    async start(effects) {
      const app = express();
      const router = createWebhookRouter(sources());
      attach(router.receivers, effects);
      // A JSON parser for the rest of the app: the webhook router is mounted before it, as the adapter asks.
      app.use("/webhooks", router);
      app.use(express.json());
      return { fetch: expressFetch(app), close: async () => {} };
    },
  },
  {
    name: "Fastify (fastifyFetch)",
    async start(effects) {
      const app = Fastify();
      const plugin = createWebhookPlugin(sources());
      attach(plugin.receivers, effects);
      app.register(plugin, { prefix: "/webhooks" });
      return { fetch: fastifyFetch(app), close: () => app.close() };
    },
  },
  {
    name: "Hono (honoFetch)",
    async start(effects) {
      const webhooks = createWebhookApp(sources());
      attach(webhooks.receivers, effects);
      const app = new Hono().route("/webhooks", webhooks);
      return { fetch: honoFetch(app), close: async () => {} };
    },
  },
  { name: "NestJS on Express (nestFetch)", start: (effects) => nestShop(effects, "express") },
  { name: "NestJS on Fastify (nestFetch)", start: (effects) => nestShop(effects, "fastify") },
];
