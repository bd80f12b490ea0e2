import type { IncomingMessage, ServerResponse } from "node:http";
import type { WebhookHttpResponse } from "@kirimbayar/core/webhooks";
import { bodyReadTimedOut, bodyTooLarge, declaresTooLargeBody } from "@kirimbayar/core/webhooks/transport";
import type { WebhookRoute } from "./webhook-routes.js";

/** The slice of Node's HTTP server the guard listens on. */
export interface RequestEmitter {
  on(event: "request", listener: (req: IncomingMessage, res: ServerResponse) => void): unknown;
}

/**
 * Nest's global body parser reads every body before any route runs, without a deadline and, below its own limit
 * (100 KB by default), whatever `Content-Length` says. For webhook paths this `request` listener, which runs as the
 * request arrives, gives core's answers instead: 413 at once for a declared length over the route's
 * `maxBodyBytes`, and 408 when the body is not whole within `bodyReadTimeoutMs`. The parser's later outcome for
 * such a request is then ignored (see the bridge and the controller, which check `res.headersSent`).
 *
 * Express only. On Fastify no parser reads a webhook body: the module's `preParsing` hook reads it with core's
 * reader and gives the same answers at the same point, before any route runs (see `readWebhookBodiesOnFastify`).
 */
export function guardWebhookBodies(
  server: RequestEmitter,
  routeOf: (req: IncomingMessage) => WebhookRoute | undefined,
): void {
  server.on("request", (req, res) => {
    const route = routeOf(req);
    if (route === undefined) return;
    if (declaresTooLargeBody(req.headers, route.maxBodyBytes)) {
      write(res, bodyTooLarge(route.maxBodyBytes));
      return;
    }
    if (req.complete) return;
    const timer = setTimeout(() => {
      if (!req.complete) write(res, bodyReadTimedOut(route.bodyReadTimeoutMs));
    }, route.bodyReadTimeoutMs);
    timer.unref();
    const stop = () => clearTimeout(timer);
    req.once("end", stop);
    res.once("close", stop);
  });
}

function write(res: ServerResponse, response: WebhookHttpResponse): void {
  if (!res.headersSent) res.writeHead(response.status, response.headers).end(response.body);
}
