import type { ShopConfig } from "@kirimbayar/example-shop-domain";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import { afterAll } from "vitest";
import { describeShopFlow } from "../../shop-domain/test/support/shop-flow.js";
import { startShop } from "../src/server.js";

const startHonoShop = async (config: ShopConfig) => {
  const shop = await startShop(config);
  return { url: shop.url, unmatched: () => shop.runtime.handlers.unmatched, close: shop.close };
};

describeShopFlow("hono", startHonoShop);

// The same flow with orders and webhook records in PostgreSQL, payment webhooks applied by transactional handlers
// (the order update commits with the webhook's idempotency record): in-process PGlite, then a real server.
describeShopFlow("hono", startHonoShop, { name: "PGlite", env: async () => ({ SHOP_DATABASE: "postgres" }) });

let postgres: TestPostgresServer | undefined;
let databases = 0;
afterAll(async () => {
  await postgres?.destroy();
});
describeShopFlow("hono", startHonoShop, {
  name: "PostgreSQL server via DATABASE_URL",
  async env() {
    postgres ??= await startPostgresServer();
    // A fresh database per test, as a fresh shop would have.
    const name = `shop_${++databases}`;
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    return { DATABASE_URL: postgres.url.replace(/\/postgres$/, `/${name}`) };
  },
});
