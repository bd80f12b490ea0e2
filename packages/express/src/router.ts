import type { IncomingMessage } from "node:http";
import {
  buildWebhookReceivers,
  WEBHOOK_SOURCES,
  type WebhookPaths,
  type WebhookReceiver,
  type WebhookReceivers,
  type WebhookSourceConfigs,
  webhookPathOf,
} from "@kirimbayar/core/webhooks";
import { type RequestHandler, Router } from "express";
import { answerNodeWebhook } from "./raw-body.js";

/** Options of {@link createWebhookRouter}: the sources to serve (configure only the ones you receive), and more. */
export interface WebhookRouterOptions extends WebhookSourceConfigs {
  /** Sub-paths under the router's mount point. Defaults: `/qris`, `/payment`, `/orders`. */
  paths?: WebhookPaths;
  /** Peer address for IP allowlists; default `req.socket.remoteAddress`. Behind a proxy: `(req) => req.ip`. */
  getRemoteAddress?: (req: IncomingMessage) => string | undefined;
}

/**
 * An Express router serving webhooks. `receivers` holds the receivers behind it, e.g. to register handlers on those
 * built from options.
 */
export type WebhookRouter = Router & { readonly receivers: WebhookReceivers };

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
  const receivers = buildWebhookReceivers(options);
  for (const source of WEBHOOK_SOURCES) {
    const receiver: WebhookReceiver | undefined = receivers[source];
    if (receiver === undefined) continue;
    router.all(webhookPathOf(source, options.paths), webhookHandler(receiver, options.getRemoteAddress));
  }
  return Object.assign(router, { receivers });
}

function webhookHandler(
  receiver: WebhookReceiver,
  getRemoteAddress: WebhookRouterOptions["getRemoteAddress"],
): RequestHandler {
  return (req, res, next) => {
    answerNodeWebhook(receiver, req, { getRemoteAddress }).then((response) => {
      res.writeHead(response.status, response.headers).end(response.body);
    }, next);
  };
}
