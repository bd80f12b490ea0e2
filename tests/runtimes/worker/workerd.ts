// Cloudflare Workers (workerd) entry: an ES module worker whose configuration comes from its bindings. Bundled by
// the test with rolldown for the workerd/worker/browser conditions, as wrangler would, and run by miniflare.
import type { Hono } from "hono";
import { buildShop, readConfig } from "./shop.ts";

let app: Hono | undefined;

export default {
  fetch(request: Request, env: Record<string, string | undefined>): Response | Promise<Response> {
    // Bindings are only known per request; they are the same object for every request of an isolate.
    app ??= buildShop(readConfig((name) => env[name]));
    return app.fetch(request, env);
  },
};
