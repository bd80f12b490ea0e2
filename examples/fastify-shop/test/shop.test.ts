import type { ShopConfig } from "@kirimbayar/example-shop-domain";
import { describeShopFlow } from "../../shop-domain/test/support/shop-flow.js";
import { startShop } from "../src/server.js";

const startFastifyShop = async (config: ShopConfig) => {
  const shop = await startShop(config);
  return { url: shop.url, unmatched: () => shop.runtime.handlers.unmatched, close: shop.close };
};

describeShopFlow("fastify", startFastifyShop);

// The same flow with orders and webhook records in in-process PGlite: payment webhooks are applied by transactional
// handlers (the order update commits with the webhook's idempotency record) behind the Fastify plugin.
describeShopFlow("fastify", startFastifyShop, { name: "PGlite", env: async () => ({ SHOP_DATABASE: "postgres" }) });
