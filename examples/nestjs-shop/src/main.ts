// Starts the NestJS shop from environment variables: `node dist/main.js` (see the README for the variables).
import { consoleGreeting, loadShopConfig, ShopConfigError } from "@kirimbayar/example-shop-domain";
import { startShop } from "./server.js";

try {
  const config = loadShopConfig(process.env);
  const shop = await startShop(config);
  console.log(`NestJS shop listening on ${shop.url}`);
  console.log(consoleGreeting(shop.url, config));
} catch (error) {
  console.error(error instanceof ShopConfigError ? error.message : error);
  process.exit(1);
}
