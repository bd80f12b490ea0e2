import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { nodeServerSteps } from "@kirimbayar/core/shutdown";
import { type RunningShop, type ShopConfig, type StartShopOptions, serveShop } from "@kirimbayar/example-shop-domain";
import { createApp } from "./app.js";

export type { RunningShop, StartShopOptions };

/**
 * Starts the Express shop on `config.host:config.port` (port 0 picks a free one) and registers its order webhook
 * when the order service is configured. The Express part is how the app listens and closes; {@link serveShop} does
 * the rest, as in the Hono shop.
 *
 * @example
 * const shop = await startShop(loadShopConfig(process.env));
 * console.log(`shop on ${shop.url}`);
 */
export function startShop(config: ShopConfig, options: StartShopOptions = {}): Promise<RunningShop> {
  return serveShop(config, options, async (runtime) => {
    const app = createApp(runtime);
    const server = await new Promise<Server>((resolve, reject) => {
      const started = app.listen(config.port, config.host, (error?: Error) =>
        error ? reject(error) : resolve(started),
      );
    });
    return {
      port: (server.address() as AddressInfo).port,
      async close() {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      },
      // Stop listening and let each keep-alive connection go once its response is sent (the graceful shutdown).
      shutdownSteps: nodeServerSteps(server),
    };
  });
}
