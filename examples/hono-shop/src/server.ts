import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { nodeServerSteps } from "@kirimbayar/core/shutdown";
import { type RunningShop, type ShopConfig, type StartShopOptions, serveShop } from "@kirimbayar/example-shop-domain";
import { createApp } from "./app.js";

export type { RunningShop, StartShopOptions };

/**
 * Starts the Hono shop on Node (`@hono/node-server`) at `config.host:config.port` (port 0 picks a free one) and
 * registers its order webhook when the order service is configured. The Hono part is how the app is served and
 * closed; {@link serveShop} does the rest, as in the Express shop.
 *
 * @example
 * const shop = await startShop(loadShopConfig(process.env));
 * console.log(`shop on ${shop.url}`);
 */
export function startShop(config: ShopConfig, options: StartShopOptions = {}): Promise<RunningShop> {
  return serveShop(config, options, async (runtime) => {
    const app = createApp(runtime);
    const server = await new Promise<ServerType>((resolve) => {
      const started = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(started));
    });
    return {
      port: (server.address() as AddressInfo).port,
      async close() {
        if ("closeAllConnections" in server) server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      },
      // Stop listening and let each keep-alive connection go once its response is sent (the graceful shutdown).
      // `serve()` made a plain HTTP/1.1 server (no `createServer` option).
      shutdownSteps: nodeServerSteps(server as Server),
    };
  });
}
