import type { IncomingMessage, ServerResponse } from "node:http";
import { toWebhookRequest } from "@kirimbayar/express";
import { All, Controller, Inject, Logger, NotFoundException, Param, Req, Res, type Type } from "@nestjs/common";
import { KIRIMBAYAR_WEBHOOK_ROUTES } from "./tokens.js";
import type { WebhookRoutes } from "./webhook-routes.js";

const missingRawBodyHint =
  "The request body was parsed without keeping its raw bytes, so webhooks cannot be verified. " +
  "Create the app with NestFactory.create(AppModule, { rawBody: true }).";

/**
 * Creates the webhook controller class for one module definition, so its route prefix is fixed when the class is
 * made instead of rewriting a shared class's path metadata at runtime. One route, `<prefix>/:source`, dispatches to
 * the receiver configured for that segment; every method reaches core (which answers 405 to non-POST/PUT).
 *
 * @example
 * const controllers = [createWebhookController("webhooks")];
 */
export function createWebhookController(prefix: string): Type {
  @Controller(prefix)
  class KirimbayarWebhookController {
    readonly #logger = new Logger("KirimbayarModule");

    constructor(@Inject(KIRIMBAYAR_WEBHOOK_ROUTES) private readonly routes: WebhookRoutes) {}

    @All(":source")
    async receive(
      @Param("source") segment: string,
      @Req() req: IncomingMessage & { rawBody?: unknown },
      @Res() res: ServerResponse,
    ): Promise<void> {
      const route = this.routes.bySegment.get(segment);
      if (route === undefined) throw new NotFoundException();
      if (req.readableEnded && !(req.rawBody instanceof Uint8Array)) this.#logger.error(missingRawBodyHint);
      const response = await route.receiver.handle(await toWebhookRequest(req, { maxBodyBytes: route.maxBodyBytes }));
      res.writeHead(response.status, response.headers).end(response.body);
    }
  }
  return KirimbayarWebhookController;
}
