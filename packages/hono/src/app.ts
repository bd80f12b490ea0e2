import {
  buildWebhookReceivers,
  WEBHOOK_SOURCES,
  WebhookConfigurationError,
  type WebhookHttpRequest,
  type WebhookHttpResponse,
  type WebhookPaths,
  type WebhookReceiver,
  type WebhookReceivers,
  type WebhookSourceConfigs,
  webhookPathOf,
} from "@kirimbayar/core/webhooks";
import { bodyTooLarge, declaresTooLargeBody, readNodeBody, readWebBody } from "@kirimbayar/core/webhooks/transport";
import { type Context, type Env, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { canReadDirectly, type NodeIncoming, nodeIncomingOf } from "./node-request.js";
import { perEnv } from "./per-env.js";

/** Options of {@link createWebhookApp}. */
export interface WebhookAppOptions<E extends Env = Env> extends WebhookSourceConfigs {
  /**
   * Builds the sources from `c.env` (Workers bindings) instead of the static fields above; called once per set of
   * bindings, also where `c.env` is a new object per request (@hono/node-server, Deno). Return ready receivers with
   * their handlers registered.
   */
  fromEnv?: (env: E["Bindings"]) => WebhookSourceConfigs;
  /** Sub-paths under the mount point. Defaults: `/qris`, `/payment`, `/orders`. */
  paths?: WebhookPaths;
  /**
   * Peer address for IP allowlists. Hono has no runtime-neutral way to read it: on Node pass
   * `(c) => getConnInfo(c).remote.address` from `@hono/node-server/conninfo` (Bun, Deno, Workers have their own
   * `getConnInfo` helpers under `hono/...`).
   */
  getRemoteAddress?: (c: Context<E>) => string | undefined;
}

/** A Hono app serving webhooks; `receivers` holds the receivers of a static configuration. */
export type WebhookApp<E extends Env = Env> = Hono<E> & { readonly receivers: WebhookReceivers };

/**
 * Builds a Hono app answering webhook deliveries; mount it with `app.route("/webhooks", webhooks)`. It reads the
 * body bytes once and hands them to core, whose status codes and bodies it returns unchanged.
 *
 * @example
 * const qris = createWebhookReceiver({ source: "qris", verify: [tokenVerifier({ secrets: [token] })] });
 * qris.on("payment.success", async (event) => markPaid(event.data.qris_history_id));
 * app.route("/webhooks", createWebhookApp({ qris })); // POST /webhooks/qris?token=...
 */
export function createWebhookApp<E extends Env = Env>(options: WebhookAppOptions<E>): WebhookApp<E> {
  const app = new Hono<E>();
  const fromEnv = options.fromEnv;
  const alsoStatic = WEBHOOK_SOURCES.filter((source) => options[source] !== undefined);
  if (fromEnv && alsoStatic.length > 0) {
    // The two do not merge; ignoring the static ones would leave their routes answering 404.
    throw new WebhookConfigurationError(
      `createWebhookApp: pass the sources either statically or through fromEnv, not both (also given: ${alsoStatic.join(", ")})`,
    );
  }
  const staticReceivers: WebhookReceivers = fromEnv ? {} : buildWebhookReceivers(options);
  const receiversFor = fromEnv
    ? perEnv((env: E["Bindings"]) => buildWebhookReceivers(fromEnv(env)))
    : () => staticReceivers;
  // `incoming` is Node's request on @hono/node-server (see below), read once per delivery by the route.
  const toRequest = (c: Context<E>, rawBody: unknown, incoming: NodeIncoming | undefined): WebhookHttpRequest => ({
    method: c.req.method,
    url: c.req.url,
    headers: incoming?.headers ?? c.req.raw.headers,
    rawBody,
    remoteAddress: options.getRemoteAddress?.(c),
  });
  const answer = async (c: Context<E>, route: Route, rawBody: unknown, incoming: NodeIncoming | undefined) =>
    reply(c, await route.handle(toRequest(c, rawBody, incoming)));
  for (const source of WEBHOOK_SOURCES) {
    if (!fromEnv && staticReceivers[source] === undefined) continue;
    app.all(webhookPathOf(source, options.paths), async (c) => {
      const route: Route | undefined = receiversFor(c.env)[source];
      if (route === undefined) return c.notFound();
      // On @hono/node-server, Node's own request: its plain header object is already parsed, whereas
      // `c.req.header()` would build a Web `Headers` per delivery.
      const incoming = nodeIncomingOf(c.env);
      // Core's HTTP contract: a declared oversize is refused before anything is read.
      if (declaresTooLargeBody(incoming?.headers ?? c.req.raw.headers, route.maxBodyBytes)) {
        return reply(c, bodyTooLarge(route.maxBodyBytes));
      }
      // A middleware already read the body through c.req: the stream is spent, Hono holds what it read.
      if (hasEntries(c.req.bodyCache)) return answer(c, route, await bodyReadBefore(c, route), incoming);
      const direct = incoming && canReadDirectly(incoming) ? incoming : undefined;
      // Read under the receiver's limits (413 past `maxBodyBytes`, 408 past `bodyReadTimeoutMs`).
      const body = direct ? await readNodeBody(direct, route) : await readWebBody(c.req.raw.body, route);
      return body instanceof Uint8Array ? answer(c, route, body, incoming) : reply(c, body);
    });
  }
  return Object.assign(app, { receivers: staticReceivers });
}

// The app enforces the receiver's own body limits before handing bytes to it.
type Route = Pick<WebhookReceiver, "handle" | "maxBodyBytes" | "bodyReadTimeoutMs">;

function reply(c: Context, response: WebhookHttpResponse): Response {
  return c.body(response.body, response.status as ContentfulStatusCode, response.headers);
}

// Without building a key array per delivery, as Object.keys would.
function hasEntries(object: object): boolean {
  for (const _ in object) return true;
  return false;
}

/**
 * The body a middleware already read through `c.req`. Hono keeps it: as text after `json()` or `text()`, whose UTF-8
 * encoding gives the bytes back, or as the bytes themselves after `arrayBuffer()` or `blob()`. Past the limit core
 * gets `limit + 1` bytes (413). Only a parsed form, or an older Hono's `json()` cache (the parsed value, whose
 * re-serialisation is not what was signed and hides duplicate keys), has lost the bytes: core gets the parsed value
 * and answers 500 naming the fix.
 */
async function bodyReadBefore(c: Context, route: Route): Promise<unknown> {
  const cache = c.req.bodyCache;
  if (cache.text !== undefined || cache.arrayBuffer !== undefined || cache.blob !== undefined) {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    return bytes.byteLength > route.maxBodyBytes ? bytes.subarray(0, route.maxBodyBytes + 1) : bytes;
  }
  return (await (cache.json ?? cache.formData)) ?? {};
}
