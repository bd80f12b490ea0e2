import type { AddressInfo } from "node:net";
import { type RunningShop, type ShopConfig, type StartShopOptions, serveShop } from "@kirimbayar/example-shop-domain";
import { fastifyShutdownSteps } from "@kirimbayar/fastify";
import { createApp } from "./app.js";
import { openPrismaDatabase } from "./database/shop-database.js";

export type { RunningShop, StartShopOptions };

/**
 * Starts the Fastify shop on `config.host:config.port` (port 0 picks a free one) and registers its order webhook
 * when the order service is configured. Its orders and the webhooks' idempotency records live in PostgreSQL through
 * Prisma (`DATABASE_URL`, or an embedded PGlite without it), payment webhooks applied by transactional handlers. The Fastify part is how the app listens and closes; {@link serveShop} does
 * the rest, as in the Express and Hono shops.
 *
 * @example
 * const shop = await startShop(loadShopConfig(process.env));
 * console.log(`shop on ${shop.url}`);
 */
export function startShop(config: ShopConfig, options: StartShopOptions = {}): Promise<RunningShop> {
  return serveShop(config, { database: openPrismaDatabase, ...options }, async (runtime) => {
    const app = createApp(runtime);
    await app.listen({ port: config.port, host: config.host });
    return {
      port: (app.server.address() as AddressInfo).port,
      // Stops listening, closes idle keep-alive connections and waits for the requests in flight.
      close: () => app.close(),
      // The same, with each keep-alive connection let go once idle and the rest cut after the grace period.
      shutdownSteps: fastifyShutdownSteps(app),
    };
  });
}
