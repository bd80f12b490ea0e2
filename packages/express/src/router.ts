import type { IncomingMessage } from "node:http";
import {
  createWebhookReceiver,
  type WebhookReceiver,
  type WebhookReceiverOptions,
  type WebhookSource,
} from "@kirimbayar/core/webhooks";
import { type RequestHandler, Router } from "express";
import { type ToWebhookRequestOptions, toWebhookRequest } from "./raw-body.js";

/** One webhook source: a receiver you built (handlers registered), or options the router builds it from. */
export type WebhookSourceConfig<S extends WebhookSource> =
  | WebhookReceiver<S>
  | Omit<WebhookReceiverOptions<S>, "source">;

/** Options of {@link createWebhookRouter}. Configure only the sources you receive. */
export interface WebhookRouterOptions {
  qris?: WebhookSourceConfig<"qris">;
  payment?: WebhookSourceConfig<"payment">;
  orders?: WebhookSourceConfig<"orders">;
  /** Sub-paths under the router's mount point. Defaults: `/qris`, `/payment`, `/orders`. */
  paths?: Partial<Record<WebhookSource, string>>;
  /** Peer address for IP allowlists; default `req.socket.remoteAddress`. Behind a proxy: `(req) => req.ip`. */
  getRemoteAddress?: (req: IncomingMessage) => string | undefined;
}

/** The receivers a router serves, by source, e.g. to register handlers on those built from options. */
export interface WebhookRouterReceivers {
  qris?: WebhookReceiver<"qris">;
  payment?: WebhookReceiver<"payment">;
  orders?: WebhookReceiver<"orders">;
}

/** An Express router serving webhooks, with the receivers behind it. */
export type WebhookRouter = Router & { readonly receivers: WebhookRouterReceivers };

const defaultPaths: Record<WebhookSource, string> = { qris: "/qris", payment: "/payment", orders: "/orders" };
const sources = ["qris", "payment", "orders"] as const;

/**
 * Builds an Express router answering webhook deliveries. It reads the raw body itself, so it works mounted before
 * or after `express.json()` (see the README for the `verify` hook); status codes and bodies are core's.
 *
 * @example
 * const qris = createWebhookReceiver({ source: "qris", verify: [tokenVerifier({ secrets: [token] })] });
 * qris.on("payment.success", async (event) => markPaid(event.data.qris_history_id));
 * app.use("/webhooks", createWebhookRouter({ qris })); // POST /webhooks/qris?token=...
 */
export function createWebhookRouter(options: WebhookRouterOptions): WebhookRouter {
  const router = Router();
  const receivers: WebhookRouterReceivers = {};
  for (const source of sources) {
    const config = options[source] as AnySourceConfig | undefined;
    if (config === undefined) continue;
    const receiver = toReceiver(source, config);
    Object.assign(receivers, { [source]: receiver });
    const readOptions = { maxBodyBytes: receiver.maxBodyBytes, getRemoteAddress: options.getRemoteAddress };
    router.all(options.paths?.[source] ?? defaultPaths[source], webhookHandler(receiver, readOptions));
  }
  return Object.assign(router, { receivers });
}

// The three sources' configs as one type, so one loop can mount them.
type Handler = Pick<WebhookReceiver, "handle" | "maxBodyBytes">;
type AnySourceConfig = Handler | Omit<WebhookReceiverOptions<WebhookSource>, "source">;

function toReceiver(source: WebhookSource, config: AnySourceConfig): Handler {
  if ("handle" in config && typeof config.handle === "function") return config;
  return createWebhookReceiver({ ...(config as Omit<WebhookReceiverOptions<WebhookSource>, "source">), source });
}

function webhookHandler(receiver: Handler, readOptions: ToWebhookRequestOptions): RequestHandler {
  return (req, res, next) => {
    toWebhookRequest(req, readOptions)
      .then((request) => receiver.handle(request))
      .then((response) => {
        res.writeHead(response.status, response.headers).end(response.body);
      }, next);
  };
}
