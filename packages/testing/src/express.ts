// `@kirimbayar/testing/express`: an Express app as a `fetch`, so the fake provider delivers its webhooks straight into
// it (no port either way) with the exact bytes it signed. Built on light-my-request.
import { dispatchOf, injectingFetch, type NodeRequestListenerLike, type NodeServerLike } from "./in-process/express.js";
import type { InjectTargetOptions, InProcessFetch } from "./in-process/inject.js";

export type { NodeRequestListenerLike, NodeServerLike } from "./in-process/express.js";
export type { InjectTargetOptions, InProcessFetch } from "./in-process/inject.js";

/**
 * A `fetch` into an Express app (Express 4 or 5): each request runs through the app's middleware and routes in
 * process, its body's bytes intact (`express.raw()`, `@kirimbayar/express`'s routers and signatures see what the fake
 * signed), and the app's answer comes back as a `Response`. Give it the app, or the `http.Server` when other
 * `request` listeners must see the requests too. The URL's host and path reach the app; no port is opened.
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
  options: InjectTargetOptions = {},
): InProcessFetch {
  return injectingFetch(dispatchOf(app, "expressFetch(app)"), options);
}
