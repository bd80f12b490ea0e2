import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { createShopRuntime, type ShopConfig, type ShopRuntime } from "@kirimbayar/example-shop-domain";
import { createApp } from "./app.js";

/** A running shop. */
export interface RunningShop {
  /** Base URL the shop listens on, e.g. `http://127.0.0.1:3000`. */
  url: string;
  runtime: ShopRuntime;
  close(): Promise<void>;
}

/** Options of {@link startShop}. */
export interface StartShopOptions {
  /** `fetch` for the API clients (tests and the demo pass the fake provider's). */
  fetch?: typeof fetch;
  now?: () => Date;
}

/**
 * Starts the Hono shop on Node (`@hono/node-server`) at `config.host:config.port` (port 0 picks a free one) and
 * registers its order webhook when the order service is configured.
 *
 * @example
 * const shop = await startShop(loadShopConfig(process.env));
 * console.log(`shop on ${shop.url}`);
 */
export async function startShop(config: ShopConfig, options: StartShopOptions = {}): Promise<RunningShop> {
  let listeningUrl = "";
  const runtime = await createShopRuntime(config, {
    ...options,
    publicBaseUrl: () => config.publicBaseUrl ?? listeningUrl,
  });
  const app = createApp(runtime);
  const server = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(started));
  });
  const { port } = server.address() as AddressInfo;
  listeningUrl = `http://${config.host}:${port}`;
  const close = async () => {
    if ("closeAllConnections" in server) server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await runtime.close();
  };
  try {
    await runtime.registerOrderWebhook();
  } catch (error) {
    await close();
    throw error;
  }
  return { url: listeningUrl, runtime, close };
}
