import type { Shop } from "@kirimbayar/example-shop-domain";
import { Body, Controller, Get, HttpCode, Inject, Post, Query, UseFilters } from "@nestjs/common";
import { ShopErrorFilter } from "./shop-error.filter.js";
import { SHOP } from "./tokens.js";

/** Destination search and shipping quotes. Validation is the shop's (zod), so bodies are taken as `unknown`. */
@Controller("shipping")
@UseFilters(ShopErrorFilter)
export class ShippingController {
  constructor(@Inject(SHOP) private readonly shop: Shop) {}

  @Get("destinations")
  async destinations(@Query() query: unknown) {
    return { data: await this.shop.searchDestinations(query) };
  }

  /** `data`: the options of the couriers with a price; `missing`: the couriers without one, and why. */
  @Post("quote")
  @HttpCode(200)
  async quote(@Body() body: unknown) {
    const { options, missing } = await this.shop.quote(body);
    return { data: options, missing };
  }
}
