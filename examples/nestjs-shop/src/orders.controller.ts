import type { Shop } from "@kirimbayar/example-shop-domain";
import { Body, Controller, Get, Inject, Param, Post, UseFilters } from "@nestjs/common";
import { ShopErrorFilter } from "./shop-error.filter.js";
import { SHOP } from "./tokens.js";

/** Orders: create (paid by QRIS), switch to a virtual account, read status and event log. */
@Controller("orders")
@UseFilters(ShopErrorFilter)
export class OrdersController {
  constructor(@Inject(SHOP) private readonly shop: Shop) {}

  @Post()
  async create(@Body() body: unknown) {
    return { data: await this.shop.createOrder(body) };
  }

  @Post(":id/pay-by-va")
  async payByVa(@Param("id") id: string, @Body() body: unknown) {
    return { data: await this.shop.payByVa(id, body) };
  }

  @Get(":id")
  async get(@Param("id") id: string) {
    return { data: await this.shop.getOrder(id) };
  }
}
