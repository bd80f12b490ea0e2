// Starts the Fastify shop from environment variables: `node dist/main.js` (see the README for the variables).
import { runShopFromEnv } from "@kirimbayar/example-shop-domain";
import { startShop } from "./server.js";

await runShopFromEnv("Fastify", startShop);
