import { describeShopFlow } from "../../shop-domain/test/support/shop-flow.js";
import { startShop } from "../src/server.js";

describeShopFlow("express", async (config) => {
  const shop = await startShop(config);
  return { url: shop.url, unmatched: () => shop.runtime.handlers.unmatched, close: shop.close };
});
