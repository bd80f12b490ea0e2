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
import type { EntityManager } from "typeorm";
import type { TypeOrmOrderRepository } from "./database/typeorm-order-repository.js";
import { ORDER_REPOSITORY, SHOP_WEBHOOK_HANDLERS } from "./tokens.js";

/** The context of a transactional webhook: `ctx.transaction` is TypeORM's EntityManager of the delivery. */
type ShopWebhookContext = WebhookContext<EntityManager>;

/**
 * The shop's webhook handlers, found by `KirimbayarModule` through their decorators. Each delegates to the
 * framework-neutral handlers the Express and Hono shops use, with the orders on the delivery's transaction
 * (`ctx.transaction`, TypeORM's EntityManager): the order update commits with the event's idempotency record.
 */
@Injectable()
export class WebhookEvents {
  constructor(
    @Inject(SHOP_WEBHOOK_HANDLERS) private readonly handlers: ShopWebhookHandlers,
    @Inject(ORDER_REPOSITORY) private readonly orders: TypeOrmOrderRepository,
  ) {}

  /** The handlers writing through the delivery's transaction. */
  private within(ctx: ShopWebhookContext): ShopWebhookHandlers {
    return this.handlers.within(this.orders.within(ctx.transaction));
  }

  @OnQrisEvent("payment.success")
  qrisPaid(event: QrisPaymentSuccessEvent, ctx: ShopWebhookContext): Promise<void> {
    return this.within(ctx).qrisPaid(event, ctx.origin);
  }

  @OnQrisEvent("payment.expired")
  qrisExpired(event: QrisPaymentExpiredEvent, ctx: ShopWebhookContext): Promise<void> {
    return this.within(ctx).qrisExpired(event, ctx.origin);
  }

  @OnPaymentCallback()
  paymentCallback(callback: PaymentCallback, ctx: ShopWebhookContext): Promise<void> {
    return this.within(ctx).paymentCallback(callback, ctx.origin);
  }

  @OnOrderStatus()
  orderStatus(change: OrderStatusWebhook, ctx: ShopWebhookContext): Promise<void> {
    return this.within(ctx).orderStatus(change);
  }
}
