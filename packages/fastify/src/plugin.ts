import {
  buildWebhookReceivers,
  WEBHOOK_SOURCES,
  WebhookConfigurationError,
  type WebhookHttpResponse,
  type WebhookPaths,
  type WebhookReceiver,
  type WebhookReceivers,
  type WebhookSource,
  type WebhookSourceConfigs,
  webhookPathOf,
} from "@kirimbayar/core/webhooks";
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import {
  type ReadFastifyWebhookRequestOptions,
  type ReadFastifyWebhookRequestResult,
  readFastifyWebhookRequest,
  readFastifyWebhookRequestThen,
} from "./raw-body.js";

/** Options of {@link createWebhookPlugin}: the sources to serve (configure only the ones you receive), and more. */
export interface WebhookPluginOptions extends WebhookSourceConfigs {
  /** Sub-paths under the plugin's prefix. Defaults: `/qris`, `/payment`, `/orders`. */
  paths?: WebhookPaths;
  /**
   * Peer address for IP allowlists; default `request.socket.remoteAddress`. Behind a proxy, with Fastify's
   * `trustProxy` set: `(request) => request.ip`.
   */
  getRemoteAddress?: (request: FastifyRequest) => string | undefined;
}

/**
 * A Fastify plugin serving webhooks. `receivers` holds the receivers behind it, e.g. to register handlers on those
 * built from options.
 */
export type WebhookPlugin = FastifyPluginAsync & { readonly receivers: WebhookReceivers };

/**
 * Errors Fastify raises for a request before any route handler runs, which would otherwise be answered with
 * Fastify's own error body instead of core's: a `Content-Type` that is not a valid media type (Fastify: 415) and a
 * `QUERY` request without one (Fastify: 400). On the webhook routes core answers them itself.
 */
const REFUSED_BEFORE_HANDLER = new Set(["FST_ERR_CTP_INVALID_MEDIA_TYPE", "FST_ERR_ROUTE_MISSING_CONTENT_TYPE"]);

/**
 * Builds a Fastify plugin answering webhook deliveries; register it with a prefix. It reads the raw body itself,
 * only on its own routes (the host app's JSON parsing elsewhere is untouched); status codes, headers and bodies are
 * core's.
 *
 * @example
 * const qris = createWebhookReceiver({ source: "qris", verify: [tokenVerifier({ secrets: [token] })] });
 * qris.on("payment.success", async (event) => markPaid(event.data.qris_history_id));
 * app.register(createWebhookPlugin({ qris }), { prefix: "/webhooks" }); // POST /webhooks/qris?token=...
 */
export function createWebhookPlugin(options: WebhookPluginOptions): WebhookPlugin {
  // Built and checked now, so a bad configuration fails where the plugin is created, not at the first delivery.
  const receivers = buildWebhookReceivers(options);
  const routes: { source: WebhookSource; path: string; receiver: WebhookReceiver }[] = [];
  for (const source of WEBHOOK_SOURCES) {
    const receiver: WebhookReceiver | undefined = receivers[source];
    if (receiver === undefined) continue;
    const path = webhookPathOf(source, options.paths);
    const taken = routes.find((route) => route.path === path);
    if (taken !== undefined) {
      throw new WebhookConfigurationError(`paths.${source}: ${path} is already the path of ${taken.source}`);
    }
    routes.push({ source, path, receiver });
  }
  const getRemoteAddress = options.getRemoteAddress;

  // Deliberately NOT wrapped in `fastify-plugin`: Fastify gives an encapsulated plugin its own copy of the parent's
  // content-type parsers, so removing them and adding the pass-through parser below changes this plugin's routes
  // only. Wrapped with `fastify-plugin` (skip-override), the same calls would run on the host instance, replacing
  // the app's JSON parser on every route, and the `prefix` register option would be ignored.
  // Async, so that a failure while registering (a route the app already has) rejects `register`/`ready`.
  const plugin: FastifyPluginAsync = async (fastify: FastifyInstance) => {
    // Every body on these routes, whatever its content type, is read by the plugin's own parser as raw bytes under
    // the receiver's limits (`maxBodyBytes`, `bodyReadTimeoutMs`), never through Fastify's `bodyLimit` or parsing.
    fastify.removeAllContentTypeParsers();
    // JSON (every delivery) is named besides "*": Fastify caches the parser it finds for a content type, but looks
    // the "*" fallback up afresh on every request, parsing the Content-Type header again each time.
    fastify.addContentTypeParser("application/json", readInParser);
    fastify.addContentTypeParser("*", readInParser);
    // On these routes only: a request Fastify refuses before the handler (see REFUSED_BEFORE_HANDLER) still gets
    // core's answer; every other error goes on to the host app's error handler.
    fastify.setErrorHandler((error: FastifyError, request, reply) => {
      const receiver = REFUSED_BEFORE_HANDLER.has(error.code) ? receiverOf(request) : undefined;
      if (receiver === undefined) throw error;
      return answer(receiver, request, reply, { limits: receiver, getRemoteAddress });
    });
    for (const { path, receiver } of routes) {
      // Built once per route rather than per delivery.
      const readOptions: ReadFastifyWebhookRequestOptions = { limits: receiver, getRemoteAddress };
      const config: WebhookRouteConfig = { kirimbayarReceiver: receiver, kirimbayarRead: readOptions };
      // Every method Fastify knows (`fastify.all`), so core answers 405 with `Allow` for the wrong ones.
      fastify.all(path, { config }, (request, reply) => answer(receiver, request, reply, readOptions));
    }
  };
  // What `fastify-plugin` would set, without its skip-override: a name in Fastify's plugin tree and errors, and
  // the Fastify major this plugin is written for (Fastify refuses to register it on another).
  Object.assign(plugin, {
    [Symbol.for("fastify.display-name")]: "@kirimbayar/fastify:webhooks",
    [Symbol.for("plugin-meta")]: { name: "@kirimbayar/fastify:webhooks", fastify: "5.x" },
  });
  return Object.assign(plugin, { receivers });
}

/** What the plugin keeps in each webhook route's `config`. */
interface WebhookRouteConfig {
  readonly kirimbayarReceiver: WebhookReceiver;
  readonly kirimbayarRead: ReadFastifyWebhookRequestOptions;
}

function routeConfigOf(request: FastifyRequest): Partial<WebhookRouteConfig> {
  return (request.routeOptions.config ?? {}) as Partial<WebhookRouteConfig>;
}

function receiverOf(request: FastifyRequest): WebhookReceiver | undefined {
  return routeConfigOf(request).kirimbayarReceiver;
}

/** A delivery the content-type parser read: `request.body` on the plugin's routes. */
class ReadDelivery {
  constructor(readonly read: ReadFastifyWebhookRequestResult) {}
}

/**
 * The plugin's content-type parser, for every content type: reads the raw bytes from Node's stream under the
 * receiver's limits (never through Fastify's `bodyLimit` or body parsing). Reading here rather than in the handler
 * is measurably cheaper per delivery (about 9–15 µs in bench/adapters' paired runs), since Fastify goes on to the
 * handler only once the body is in. A request whose body Fastify does not parse (no body, or a method without
 * one) is read in the handler instead, the same way.
 */
function readInParser(
  request: FastifyRequest,
  _payload: unknown,
  parsed: (error: null, body: ReadDelivery | undefined) => void,
): void {
  const readOptions = routeConfigOf(request).kirimbayarRead;
  // Not one of the plugin's routes (a 404 inside its prefix): nothing to read for.
  if (readOptions === undefined) {
    parsed(null, undefined);
    return;
  }
  readFastifyWebhookRequestThen(
    request,
    readOptions,
    (read) => parsed(null, new ReadDelivery(read)),
    // Never expected (reading answers every failure); the handler then tries again and answers whatever it finds.
    () => parsed(null, undefined),
  );
}

// Not an async function, and it resolves with nothing rather than the reply: Fastify then has no reply to adopt as a
// thenable, and a delivery costs no further promise turns than the receiver's own (about 4 % of the route's
// instructions per request together with the callback read above; bench/README.md, "Fastify's webhook route").
function answer(
  receiver: WebhookReceiver,
  request: FastifyRequest,
  reply: FastifyReply,
  readOptions: ReadFastifyWebhookRequestOptions,
): Promise<void> {
  const body = request.body;
  if (body instanceof ReadDelivery) return answerRead(receiver, reply, body.read);
  return readFastifyWebhookRequest(request, readOptions).then((read) => answerRead(receiver, reply, read));
}

function answerRead(
  receiver: WebhookReceiver,
  reply: FastifyReply,
  read: ReadFastifyWebhookRequestResult,
): Promise<void> {
  const response = "refusal" in read ? Promise.resolve(read.refusal) : receiver.handle(read.request);
  return response.then((answered) => {
    send(reply, answered);
  });
}

/**
 * Writes core's answer as it is. The body goes out as the string core made: Node's `http` joins a string body to
 * the headers and writes them as one string, while a `Buffer` body is queued behind the headers and flushed as a
 * two-chunk write (bench/adapters, alternating runs: webhook ÷ same-checks 0.86-0.93x with a `Buffer`, 0.94-0.97x
 * with the string). Core's content type always names the
 * charset, so Fastify adds none; the serializer is set to pass the string through, so one a host hook may have set
 * on the reply cannot encode it a second time. A `Connection: close` header (408, 413 before reading) closes the
 * connection once the answer is written.
 */
function send(reply: FastifyReply, response: WebhookHttpResponse): FastifyReply {
  return reply.code(response.status).headers(response.headers).serializer(asIs).send(response.body);
}

function asIs(payload: unknown): string {
  return payload as string;
}
