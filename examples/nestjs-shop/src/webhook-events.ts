import type {
  OrderStatusWebhook,
  PaymentCallback,
  QrisPaymentExpiredEvent,
  QrisPaymentSuccessEvent,
  WebhookContext,
} from "@kirimbayar/core/webhooks";
import { drillDelay, type ShopReceiversDrill, type ShopWebhookHandlers } from "@kirimbayar/example-shop-domain";
import { OnOrderStatus, OnPaymentCallback, OnQrisEvent } from "@kirimbayar/nestjs";
import { Inject, Injectable } from "@nestjs/common";
import type { EntityManager } from "typeorm";
import type { TypeOrmOrderRepository } from "./database/typeorm-order-repository.js";
import { ORDER_REPOSITORY, SHOP_DRILL, SHOP_WEBHOOK_HANDLERS } from "./tokens.js";

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
    @Inject(SHOP_DRILL) private readonly drill: ShopReceiversDrill,
  ) {}

  /** The handlers writing through the delivery's transaction (after the deploy drill's wait, if any). */
  private async within(ctx: ShopWebhookContext): Promise<ShopWebhookHandlers> {
    await drillDelay(this.drill, ctx.signal);
    return this.handlers.within(this.orders.within(ctx.transaction));
  }

  @OnQrisEvent("payment.success")
  async qrisPaid(event: QrisPaymentSuccessEvent, ctx: ShopWebhookContext): Promise<void> {
    return (await this.within(ctx)).qrisPaid(event, ctx.origin);
  }

  @OnQrisEvent("payment.expired")
  async qrisExpired(event: QrisPaymentExpiredEvent, ctx: ShopWebhookContext): Promise<void> {
    return (await this.within(ctx)).qrisExpired(event, ctx.origin);
  }

  @OnPaymentCallback()
  async paymentCallback(callback: PaymentCallback, ctx: ShopWebhookContext): Promise<void> {
    return (await this.within(ctx)).paymentCallback(callback, ctx.origin);
  }

  @OnOrderStatus()
  async orderStatus(change: OrderStatusWebhook, ctx: ShopWebhookContext): Promise<void> {
    return (await this.within(ctx)).orderStatus(change);
  }
}
