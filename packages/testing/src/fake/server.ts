import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { NETWORK_FAILURE } from "./app.js";

/** Options of `provider.listen`. */
export interface ListenOptions {
  /** Port to bind; `0` (default) picks a free one. */
  port?: number;
  /** Interface to bind. Default `127.0.0.1`. */
  host?: string;
}

/** A running fake server. */
export interface RunningServer {
  /** Base URL to give every client, e.g. `http://127.0.0.1:4010`. */
  url: string;
  port: number;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** Serves `handle` over real HTTP; a network-failure response drops the connection instead of answering. */
export async function listen(
  handle: (request: Request) => Promise<Response>,
  options: ListenOptions = {},
): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const listener = getRequestListener(
    async (request, env) => {
      const response = await handle(request);
      if (NETWORK_FAILURE.has(response) && "socket" in env.incoming) {
        env.incoming.socket?.destroy();
      }
      return response;
    },
    { overrideGlobalObjects: false },
  );
  const server: Server = createServer((incoming, outgoing) => {
    void listener(incoming, outgoing);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
