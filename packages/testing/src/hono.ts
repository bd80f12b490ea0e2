// `@kirimbayar/testing/hono`: a Hono app as a `fetch`, so the fake provider delivers its webhooks straight into it
// through `app.fetch()` (no port either way) with the exact bytes it signed.
import { type InProcessFetch, requestOf } from "./in-process/web.js";

export type { InProcessFetch } from "./in-process/web.js";

/** The slice of a Hono app the helper calls, typed structurally so that these declarations need no Hono. */
export interface HonoFetchLike {
  fetch(request: Request, ...rest: never[]): Response | Promise<Response>;
}

/** Options of {@link honoFetch}. */
export interface HonoFetchOptions {
  /** Bindings the app reads as `c.env` (a Workers app's secrets, for example). Default: none. */
  env?: unknown;
}

/**
 * A `fetch` into a Hono app: each request goes to `app.fetch()` (middleware, routes, and `@kirimbayar/hono`'s
 * routes reading the raw bytes the fake signed), and the app's `Response` comes back as it is. No port is opened.
 *
 * @example
 * import { honoFetch } from "@kirimbayar/testing/hono";
 *
 * const app = new Hono().route("/webhooks", createWebhookApp({ qris: { verify } })); // @kirimbayar/hono
 * const provider = createFakeProvider({
 *   webhooks: { qrisUrl: "http://shop.test/webhooks/qris?token=t0k3n", fetch: honoFetch(app) },
 * });
 */
export function honoFetch(app: HonoFetchLike, options: HonoFetchOptions = {}): InProcessFetch {
  if (typeof (app as HonoFetchLike | undefined)?.fetch !== "function") {
    throw new TypeError(`honoFetch(app) needs a Hono app (what new Hono() returns); got ${typeof app}`);
  }
  const fetchApp = app.fetch as (request: Request, env?: unknown) => Response | Promise<Response>;
  return async (input, init) => fetchApp.call(app, requestOf(input, init), options.env);
}
