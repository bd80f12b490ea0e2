// Starts the Express shop from environment variables: `node dist/main.js` (see the README for the variables).
import { loadShopConfig, ShopConfigError } from "@kirimbayar/example-shop-domain";
import { startShop } from "./server.js";

try {
  const shop = await startShop(loadShopConfig(process.env));
  console.log(`Express shop listening on ${shop.url} (webhook idempotency store: ${shop.runtime.storeKind})`);
  const stop = () => {
    shop.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
} catch (error) {
  console.error(error instanceof ShopConfigError ? error.message : error);
  process.exit(1);
}
