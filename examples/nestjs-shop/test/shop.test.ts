import "reflect-metadata";
import { describeShopFlow } from "../../shop-domain/test/support/shop-flow.js";
import { startShop } from "../src/server.js";

describeShopFlow("nestjs", async (config) => {
  const shop = await startShop(config, { logger: false });
  return { url: shop.url, unmatched: () => shop.handlers.unmatched, close: shop.close };
});
