// `@kirimbayar/testing/express`: an Express app as a `fetch`, so the fake provider delivers its webhooks straight into
// it (no port either way) with the exact bytes it signed.
import { type NodeRequestListenerLike, type NodeServerLike, serverFetch, serverOf } from "./in-process/node-server.js";
import type { InProcessFetch, InProcessOptions } from "./in-process/web.js";

export type { NodeRequestListenerLike, NodeServerLike } from "./in-process/node-server.js";
export type { InProcessFetch, InProcessOptions } from "./in-process/web.js";

/**
 * A `fetch` into an Express app (Express 4 or 5), or any Node request listener or `http.Server`: each request
 * reaches the app over an in-memory connection to a Node HTTP server that never listens, so the app sees a real
 * `IncomingMessage` and answers through a real `ServerResponse`, its body's bytes intact (`express.raw()` and
 * `@kirimbayar/express`'s routes verify what the fake signed). Give it the app, or the `http.Server` when other
 * `request` listeners must see the requests too. The URL's host, path and query reach the app; no port is opened.
 *
 * @example
 * import { expressFetch } from "@kirimbayar/testing/express";
 *
 * const app = express();
 * app.use("/webhooks", createWebhookRouter({ qris: { verify } })); // @kirimbayar/express
 * const provider = createFakeProvider({
 *   webhooks: { qrisUrl: "http://shop.test/webhooks/qris?token=t0k3n", fetch: expressFetch(app) },
 * });
 */
export function expressFetch(
  app: NodeRequestListenerLike | NodeServerLike,
  options: InProcessOptions = {},
): InProcessFetch {
  return serverFetch(serverOf(app, "expressFetch(app)"), options);
}
