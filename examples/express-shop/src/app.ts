import {
  HEALTH_PATHS,
  liveness,
  readiness,
  ShopError,
  type ShopRuntime,
  shopErrorStatus,
  toShopError,
} from "@kirimbayar/example-shop-domain";
import { consoleRouter, createWebhookRouter } from "@kirimbayar/express";
import express, { type ErrorRequestHandler, type Express } from "express";

/** Answers a {@link ShopError} (or a kirimbayar client error) with its status; anything else is a 500. */
const errorHandler: ErrorRequestHandler = (error, _req, res, _next) => {
  if (error instanceof SyntaxError && "body" in error) {
    res.status(400).json(new ShopError("invalid_request", "The body is not valid JSON").toJSON());
    return;
  }
  let shopError: ShopError;
  try {
    shopError = toShopError(error);
  } catch {
    console.error(error);
    res.status(500).json({ error: { code: "internal_error", message: "Something went wrong" } });
    return;
  }
  res.status(shopErrorStatus(shopError)).json(shopError.toJSON());
};

/**
 * The shop as an Express 5 app. The webhook router is mounted before `express.json()`: it reads the raw body the
 * signatures are computed over, and the JSON parser would otherwise consume it first.
 *
 * @example
 * const app = createApp(await createShopRuntime(config, { publicBaseUrl: () => "https://shop.example" }));
 * app.listen(3000);
 */
export function createApp(runtime: ShopRuntime): Express {
  const { shop } = runtime;
  const app = express();
  app.disable("x-powered-by");

  // Probes: readiness turns 503 once the graceful shutdown begins, so the load balancer routes elsewhere.
  app.get(HEALTH_PATHS.live, (_req, res) => {
    res.json(liveness().body);
  });
  app.get(HEALTH_PATHS.ready, (_req, res) => {
    const { status, body } = readiness(runtime.shutdown);
    res.status(status).json(body);
  });
  app.use("/webhooks", createWebhookRouter(runtime.receivers));
  // The webhook console (behind its password): every delivery's story, dead letters, replay and reconcile.
  app.use(runtime.console.basePath, consoleRouter(runtime.console));
  app.use(express.json({ limit: "100kb" }));

  // Express 5 passes a rejected promise to the error handler below, so the routes can simply be async.
  app.get("/shipping/destinations", async (req, res) => {
    res.json({ data: await shop.searchDestinations(req.query) });
  });
  app.post("/shipping/quote", async (req, res) => {
    res.json({ data: await shop.quote(req.body) });
  });
  app.post("/orders", async (req, res) => {
    res.status(201).json({ data: await shop.createOrder(req.body) });
  });
  app.post("/orders/:id/pay-by-va", async (req, res) => {
    res.status(201).json({ data: await shop.payByVa(req.params.id, req.body) });
  });
  app.get("/orders/:id", async (req, res) => {
    res.json({ data: await shop.getOrder(req.params.id) });
  });

  app.use(errorHandler);
  return app;
}
