import {
  HEALTH_PATHS,
  liveness,
  readiness,
  type Shop,
  ShopError,
  type ShopRuntime,
  shopErrorStatus,
  toShopError,
} from "@kirimbayar/example-shop-domain";
import { consolePlugin, createWebhookPlugin, kirimbayarClients } from "@kirimbayar/fastify";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyPluginAsync, type FastifyReply } from "fastify";

/** The status of one of Fastify's own refusals (they carry a 4xx `statusCode`), else `undefined`. */
function clientErrorStatus(error: unknown): number | undefined {
  const status = (error as Partial<FastifyError> | undefined)?.statusCode;
  return typeof status === "number" && status >= 400 && status < 500 ? status : undefined;
}

/**
 * Answers a {@link ShopError} (or a kirimbayar client error) with its status, and Fastify's own refusals of a body
 * (not JSON, empty, too large, an unsupported content type) with theirs, all in the shop's error body; anything
 * else is a 500. The webhook plugin's routes never get here for their own answers: those are core's.
 */
function answerError(error: FastifyError, reply: FastifyReply): FastifyReply {
  let shopError: ShopError;
  try {
    shopError = toShopError(error);
  } catch {
    const status = clientErrorStatus(error);
    if (status === undefined) {
      console.error(error);
      return reply.code(500).send({ error: { code: "internal_error", message: "Something went wrong" } });
    }
    const message = error.code === "FST_ERR_CTP_INVALID_JSON_BODY" ? "The body is not valid JSON" : error.message;
    return reply.code(status).send(new ShopError(status === 404 ? "not_found" : "invalid_request", message).toJSON());
  }
  return reply.code(shopErrorStatus(shopError)).send(shopError.toJSON());
}

/** Options of {@link shopRoutes}. */
export interface ShopRoutesOptions {
  shop: Shop;
}

/**
 * The shop's own routes as a Fastify plugin. Bodies are parsed by Fastify's JSON parser and validated by the shop
 * (zod, every problem listed), so the routes take them as `unknown` and declare no JSON schema.
 *
 * @example
 * app.register(shopRoutes, { shop: runtime.shop });
 */
export const shopRoutes: FastifyPluginAsync<ShopRoutesOptions> = async (app, { shop }) => {
  app.get("/shipping/destinations", async (request) => ({ data: await shop.searchDestinations(request.query) }));
  app.post("/shipping/quote", async (request) => ({ data: await shop.quote(request.body) }));
  app.post("/orders", async (request, reply) => {
    const data = await shop.createOrder(request.body);
    return reply.code(201).send({ data });
  });
  app.post<{ Params: { id: string } }>("/orders/:id/pay-by-va", async (request, reply) => {
    const data = await shop.payByVa(request.params.id, request.body);
    return reply.code(201).send({ data });
  });
  app.get<{ Params: { id: string } }>("/orders/:id", async (request) => ({
    data: await shop.getOrder(request.params.id),
  }));
};

/**
 * The shop as a Fastify 5 app. The webhook plugin is encapsulated: its pass-through content-type parser (it reads
 * the raw bytes the signatures are computed over) applies to its routes under `/webhooks` only, so the shop's own
 * routes keep Fastify's JSON parser, and the order in which they are registered does not matter.
 *
 * @example
 * const app = createApp(await createShopRuntime(config, { publicBaseUrl: () => "https://shop.example" }));
 * await app.listen({ port: 3000 });
 */
export function createApp(runtime: ShopRuntime): FastifyInstance {
  // No logger: Fastify's request log would show the `?token=` of the QRIS and order webhook URLs (see the README).
  // Bodies on the shop's routes are small; the webhook routes have their own limit (the receivers' maxBodyBytes).
  const app = Fastify({ bodyLimit: 100 * 1024 });

  // Set before the plugins below are loaded, so every route inherits them (the webhook plugin keeps its own error
  // handler for the requests Fastify refuses before its handler, and passes every other error up to this one).
  app.setErrorHandler((error: FastifyError, _request, reply) => answerError(error, reply));
  // Fastify's default 404 repeats the URL as received, query string included: a delivery sent to a wrong path
  // would echo its token. This one names the path only.
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?", 1)[0];
    return reply.code(404).send(new ShopError("not_found", `No route ${request.method} ${path}`).toJSON());
  });

  // The shop's clients (the same instances the shop calls), as `app.kirimbayar` / `request.server.kirimbayar` for
  // any route or plugin added later.
  const { payment, qris, shipping, orderWebhook } = runtime.clients;
  app.register(
    kirimbayarClients({
      paymentGateway: payment,
      qris,
      shipping,
      ...(orderWebhook === undefined ? {} : { orderWebhook }),
    }),
  );
  // Probes: readiness turns 503 once the graceful shutdown begins, so the load balancer routes elsewhere.
  app.get(HEALTH_PATHS.live, async () => liveness().body);
  app.get(HEALTH_PATHS.ready, async (_request, reply) => {
    const { status, body } = readiness(runtime.shutdown);
    return reply.code(status).send(body);
  });
  // POST /webhooks/qris?token=…   POST /webhooks/payment   POST|PUT /webhooks/orders?token=…
  app.register(createWebhookPlugin(runtime.receivers), { prefix: "/webhooks" });
  // The webhook console (behind its password) at /kirimbayar/console: every delivery's story, dead letters, replay.
  app.register(consolePlugin, { console: runtime.console });
  app.register(shopRoutes, { shop: runtime.shop });
  return app;
}
