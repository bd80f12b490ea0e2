// checkout.ts
import type { QrisPaymentExpiredEvent, QrisPaymentSuccessEvent, WebhookContext } from "@kirimbayar/core/webhooks";
import { OnQrisEvent, QrisClient } from "@kirimbayar/nestjs";
import { Body, Controller, Get, Inject, Injectable, NotFoundException, Param, Post } from "@nestjs/common";
import { InjectRepository } from "@nestjs/typeorm";
import type { EntityManager, Repository } from "typeorm";
import { APP_CONFIG, type AppConfig } from "./app.config.js";
import { Order } from "./order.entity.js";

@Controller("orders")
export class OrdersController {
  constructor(
    @Inject(QrisClient) private readonly qris: QrisClient,
    @InjectRepository(Order) private readonly orders: Repository<Order>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  async create(@Body() body: { total: number }) {
    const { data } = await this.qris.generateQris({
      qris_id: this.config.qris.qrisId,
      amount: body.total,
      output_type: "string",
    });
    const order = await this.orders.save({
      total: body.total,
      amountDue: data.final_amount,
      qrisHistoryId: String(data.history_id),
    });
    return { id: order.id, qris_history_id: order.qrisHistoryId, qris_string: data.qris_string };
  }

  @Get(":id")
  async get(@Param("id") id: string) {
    const order = await this.orders.findOneBy({ id: Number(id) });
    if (order === null) throw new NotFoundException();
    return order;
  }
}

@Injectable()
export class PaymentEvents {
  // Through the delivery's EntityManager: the order changes in the transaction that records the event.
  @OnQrisEvent("payment.success")
  async paid(event: QrisPaymentSuccessEvent, ctx: WebhookContext<EntityManager>) {
    await ctx.transaction.update(
      Order,
      { qrisHistoryId: String(event.data.qris_history_id), amountDue: event.data.amount, status: "awaiting_payment" },
      { status: "paid" },
    );
  }

  @OnQrisEvent("payment.expired")
  async expired(event: QrisPaymentExpiredEvent, ctx: WebhookContext<EntityManager>) {
    await ctx.transaction.update(
      Order,
      { qrisHistoryId: String(event.data.qris_history_id), status: "awaiting_payment" },
      { status: "expired" },
    );
  }
}
