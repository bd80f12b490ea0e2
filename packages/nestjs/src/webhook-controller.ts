import type { IncomingMessage, ServerResponse } from "node:http";
import type { WebhookHttpRequest } from "@kirimbayar/core/webhooks";
import { readNodeWebhookRequest, withoutDecodedCoding } from "@kirimbayar/core/webhooks/transport";
import { All, Controller, Inject, Logger, NotFoundException, Param, Req, Res, type Type } from "@nestjs/common";
import { HttpAdapterHost } from "@nestjs/core";
import { answerFastifyWebhook, type FastifyReplyLike, type FastifyRequestLike } from "./fastify-platform.js";
import { KIRIMBAYAR_WEBHOOK_ROUTES } from "./tokens.js";
import type { WebhookRoute, WebhookRoutes } from "./webhook-routes.js";

const missingRawBodyHint =
  "The request body was parsed without keeping its raw bytes, so webhooks cannot be verified. " +
  "Create the app with NestFactory.create(AppModule, { rawBody: true }).";
const logger = new Logger("KirimbayarModule");

/**
 * The name of the controller's route parameter (`<prefix>/:kirimbayarSource`). Distinctive, so that on Fastify the
 * module's hooks recognise its route by the path pattern the request matched, and no route of the app.
 */
export const WEBHOOK_SOURCE_PARAM = "kirimbayarSource";

/** A request that Nest's body parser may have read, keeping the bytes on `rawBody` when `rawBody: true`. */
export type NestWebhookRequest = IncomingMessage & { rawBody?: unknown; originalUrl?: string };

/**
 * Express platform: hands one request to a route's receiver and writes core's answer unchanged. `rawBody` overrides
 * the bytes (used when Nest's body parser refused the body before any route ran). Does nothing when the request guard
 * has already answered (a declared oversize, or a body not whole within the deadline).
 *
 * @example
 * await answerWebhook(route, req, res);
 */
export async function answerWebhook(
  route: WebhookRoute,
  req: NestWebhookRequest,
  res: ServerResponse,
  rawBody?: Uint8Array,
): Promise<void> {
  if (res.headersSent) return;
  if (rawBody === undefined && req.readableEnded && !(req.rawBody instanceof Uint8Array)) {
    logger.error(missingRawBodyHint);
  }
  const read = rawBody === undefined ? await readNodeWebhookRequest(req, route) : { request: parts(req, rawBody) };
  const response = "refusal" in read ? read.refusal : await route.receiver.handle(read.request);
  if (!res.headersSent) res.writeHead(response.status, response.headers).end(response.body);
}

// The request around bytes Nest's body parser left (already inflated from gzip or deflate).
function parts(req: NestWebhookRequest, rawBody: Uint8Array): WebhookHttpRequest {
  return {
    method: req.method ?? "POST",
    url: req.originalUrl ?? req.url ?? "/",
    headers: withoutDecodedCoding(req.headers),
    rawBody,
    remoteAddress: req.socket.remoteAddress,
  };
}

/**
 * Creates the webhook controller class for one module definition, so its route prefix is fixed when the class is
 * made instead of rewriting a shared class's path metadata at runtime. One route, `<prefix>/:kirimbayarSource`,
 * dispatches to the receiver configured for that segment; every method reaches core (which answers 405 to
 * non-POST/PUT). On Express `req`/`res` are Node's request and response; on Fastify, Fastify's request and reply.
 *
 * @example
 * const controllers = [createWebhookController("webhooks")];
 */
export function createWebhookController(prefix: string): Type {
  @Controller(prefix)
  class KirimbayarWebhookController {
    constructor(
      @Inject(KIRIMBAYAR_WEBHOOK_ROUTES) private readonly routes: WebhookRoutes,
      @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    ) {}

    @All(`:${WEBHOOK_SOURCE_PARAM}`)
    async receive(
      @Param(WEBHOOK_SOURCE_PARAM) segment: string,
      @Req() req: NestWebhookRequest | FastifyRequestLike,
      @Res() res: ServerResponse | FastifyReplyLike,
    ): Promise<void> {
      const route = this.routes.bySegment.get(segment);
      if (route === undefined) throw new NotFoundException();
      if (this.adapterHost.httpAdapter?.getType() === "fastify") {
        await answerFastifyWebhook(route, req as FastifyRequestLike, res as FastifyReplyLike);
      } else {
        await answerWebhook(route, req as NestWebhookRequest, res as ServerResponse);
      }
    }
  }
  return KirimbayarWebhookController;
}
