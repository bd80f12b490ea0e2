import {
  HEALTH_PATHS,
  liveness,
  readiness,
  ShopError,
  type ShopRuntime,
  shopErrorStatus,
  toShopError,
} from "@kirimbayar/example-shop-domain";
import { consoleApp, createWebhookApp } from "@kirimbayar/hono";
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Reads a JSON body, answering 400 (not 500) when it is not JSON. */
async function jsonBody(c: Context): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw new ShopError("invalid_request", "The body is not valid JSON");
  }
}

/**
 * The shop as a Hono app. Hono parses nothing by itself, so the webhook app reads the raw bytes whatever is mounted
 * around it.
 *
 * @example
 * const app = createApp(await createShopRuntime(config, { publicBaseUrl: () => "https://shop.example" }));
 * serve({ fetch: app.fetch, port: 3000 });
 */
export function createApp(runtime: ShopRuntime): Hono {
  const { shop } = runtime;
  const app = new Hono();

  // Probes: readiness turns 503 once the graceful shutdown begins, so the load balancer routes elsewhere.
  app.get(HEALTH_PATHS.live, (c) => c.json(liveness().body));
  app.get(HEALTH_PATHS.ready, (c) => {
    const { status, body } = readiness(runtime.shutdown);
    return c.json(body, status);
  });
  app.route("/webhooks", createWebhookApp(runtime.receivers));
  // The webhook console (behind its password): every delivery's story, dead letters, replay and reconcile.
  app.route(runtime.console.basePath, consoleApp(runtime.console));

  app.get("/shipping/destinations", async (c) => c.json({ data: await shop.searchDestinations(c.req.query()) }));
  app.post("/shipping/quote", async (c) => c.json({ data: await shop.quote(await jsonBody(c)) }));
  app.post("/orders", async (c) => c.json({ data: await shop.createOrder(await jsonBody(c)) }, 201));
  app.post("/orders/:id/pay-by-va", async (c) =>
    c.json({ data: await shop.payByVa(c.req.param("id"), await jsonBody(c)) }, 201),
  );
  app.get("/orders/:id", async (c) => c.json({ data: await shop.getOrder(c.req.param("id")) }));

  app.onError((error, c) => {
    let shopError: ShopError;
    try {
      shopError = toShopError(error);
    } catch {
      console.error(error);
      return c.json({ error: { code: "internal_error", message: "Something went wrong" } }, 500);
    }
    return c.json(shopError.toJSON(), shopErrorStatus(shopError) as ContentfulStatusCode);
  });
  return app;
}
