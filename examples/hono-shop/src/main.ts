// Starts the Hono shop from environment variables: `node dist/main.js` (see the README for the variables).
import { runShopFromEnv } from "@kirimbayar/example-shop-domain";
import { startShop } from "./server.js";

// This example keeps its orders in PostgreSQL unless told otherwise: DATABASE_URL for a server, else in-process PGlite.
process.env.SHOP_DATABASE ??= "postgres";
await runShopFromEnv("Hono", startShop);
