import type {
  OrderStatusWebhook,
  PaymentCallback,
  QrisPaymentExpiredEvent,
  QrisPaymentSuccessEvent,
  WebhookContext,
} from "@kirimbayar/core/webhooks";
import type { ShopWebhookHandlers } from "@kirimbayar/example-shop-domain";
import { OnOrderStatus, OnPaymentCallback, OnQrisEvent } from "@kirimbayar/nestjs";
import { Inject, Injectable } from "@nestjs/common";
import { SHOP_WEBHOOK_HANDLERS } from "./tokens.js";

/**
 * The shop's webhook handlers, found by `KirimbayarModule` through their decorators. Each delegates to the
 * framework-neutral handlers the Express and Hono shops use.
 */
@Injectable()
export class WebhookEvents {
  constructor(@Inject(SHOP_WEBHOOK_HANDLERS) private readonly handlers: ShopWebhookHandlers) {}

  @OnQrisEvent("payment.success")
  qrisPaid(event: QrisPaymentSuccessEvent, ctx: WebhookContext): Promise<void> {
    return this.handlers.qrisPaid(event, ctx.origin);
  }

  @OnQrisEvent("payment.expired")
  qrisExpired(event: QrisPaymentExpiredEvent, ctx: WebhookContext): Promise<void> {
    return this.handlers.qrisExpired(event, ctx.origin);
  }

  @OnPaymentCallback()
  paymentCallback(callback: PaymentCallback, ctx: WebhookContext): Promise<void> {
    return this.handlers.paymentCallback(callback, ctx.origin);
  }

  @OnOrderStatus()
  orderStatus(change: OrderStatusWebhook): Promise<void> {
    return this.handlers.orderStatus(change);
  }
}
