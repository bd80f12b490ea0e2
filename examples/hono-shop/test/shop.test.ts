import { describeShopFlow } from "../../shop-domain/test/support/shop-flow.js";
import { startShop } from "../src/server.js";

describeShopFlow("hono", async (config) => {
  const shop = await startShop(config);
  return { url: shop.url, unmatched: () => shop.runtime.handlers.unmatched, close: shop.close };
});

// The same flow with orders and webhook records in PostgreSQL (in-process PGlite), payment webhooks applied by
// transactional handlers: the order update commits with the webhook's idempotency record.
describeShopFlow(
  "hono",
  async (config) => {
    const shop = await startShop(config);
    return { url: shop.url, unmatched: () => shop.runtime.handlers.unmatched, close: shop.close };
  },
  { SHOP_DATABASE: "postgres" },
);
