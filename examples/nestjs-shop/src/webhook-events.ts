import type {
  OrderStatusWebhook,
  PaymentCallback,
  QrisPaymentExpiredEvent,
  QrisPaymentSuccessEvent,
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
  qrisPaid(event: QrisPaymentSuccessEvent): Promise<void> {
    return this.handlers.qrisPaid(event);
  }

  @OnQrisEvent("payment.expired")
  qrisExpired(event: QrisPaymentExpiredEvent): Promise<void> {
    return this.handlers.qrisExpired(event);
  }

  @OnPaymentCallback()
  paymentCallback(callback: PaymentCallback): Promise<void> {
    return this.handlers.paymentCallback(callback);
  }

  @OnOrderStatus()
  orderStatus(change: OrderStatusWebhook): Promise<void> {
    return this.handlers.orderStatus(change);
  }
}
