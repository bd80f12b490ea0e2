import type { ShopConfig } from "@kirimbayar/example-shop-domain";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import { afterAll } from "vitest";
import { describeShopFlow } from "../../shop-domain/test/support/shop-flow.js";
import { startShop } from "../src/server.js";

const startFastifyShop = async (config: ShopConfig) => {
  const shop = await startShop(config);
  return { url: shop.url, unmatched: () => shop.runtime.handlers.unmatched, close: shop.close };
};

// The Fastify shop keeps its orders through Prisma, and each payment webhook updates its order on Prisma's
// interactive transaction (ctx.transaction) together with the webhook's idempotency record: on its embedded
// PostgreSQL (PGlite, the default), then on a real server.
describeShopFlow("fastify", startFastifyShop);

let postgres: TestPostgresServer | undefined;
let databases = 0;
afterAll(async () => {
  await postgres?.destroy();
});
describeShopFlow("fastify", startFastifyShop, {
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
