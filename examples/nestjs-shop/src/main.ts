// Starts the NestJS shop from environment variables: `node dist/main.js` (see the README for the variables).
import { loadShopConfig, ShopConfigError } from "@kirimbayar/example-shop-domain";
import { startShop } from "./server.js";

try {
  const shop = await startShop(loadShopConfig(process.env));
  console.log(`NestJS shop listening on ${shop.url}`);
} catch (error) {
  console.error(error instanceof ShopConfigError ? error.message : error);
  process.exit(1);
}
