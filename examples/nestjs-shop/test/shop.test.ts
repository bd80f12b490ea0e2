import "reflect-metadata";
import type { ShopConfig } from "@kirimbayar/example-shop-domain";
import { startMariaDbServer, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll } from "vitest";
import { describeShopFlow } from "../../shop-domain/test/support/shop-flow.js";
import { startShop } from "../src/server.js";

// The NestJS shop keeps its orders through TypeORM, and each payment webhook updates its order through
// ctx.transaction (TypeORM's EntityManager) in the same transaction as the webhook's idempotency record. The same
// flow on its embedded PostgreSQL (PGlite, the default), a real PostgreSQL server and a real MariaDB server.
const startNestShop = async (config: ShopConfig) => {
  const shop = await startShop(config, { logger: false });
  return { url: shop.url, unmatched: () => shop.handlers.unmatched, close: shop.close };
};

describeShopFlow("nestjs", startNestShop);

let postgres: TestPostgresServer | undefined;
let mariadb: TestMariaDbServer | undefined;
let databases = 0;
afterAll(async () => {
  await postgres?.destroy();
  await mariadb?.destroy();
}, 60_000);

describeShopFlow("nestjs", startNestShop, {
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

describeShopFlow("nestjs", startNestShop, {
  name: "MariaDB server via DATABASE_URL=mysql://",
  async env() {
    mariadb ??= await startMariaDbServer();
    const name = `shop_${++databases}`;
    const admin = await mysql.createConnection(mariadb.url);
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    return { DATABASE_URL: mariadb.url.replace(/\/[^/]*$/, `/${name}`) };
  },
});
