import type { ServerResponse } from "node:http";
import { WebhookConfigurationError } from "@kirimbayar/core/webhooks";
import { Inject, Injectable, type OnModuleInit } from "@nestjs/common";
import { HttpAdapterHost } from "@nestjs/core";
import { KIRIMBAYAR_WEBHOOK_PATH, KIRIMBAYAR_WEBHOOK_ROUTES } from "./tokens.js";
import { answerWebhook, type NestWebhookRequest } from "./webhook-controller.js";
import type { WebhookRoutes } from "./webhook-routes.js";

type BodyParserError = Error & { type?: unknown };

/**
 * Nest's global JSON parser runs before every route and answers a malformed or oversized body itself, with its
 * own status and body. For webhook paths this Express error middleware hands such a request to core instead:
 * the bytes the parser's `rawBody` hook kept (malformed JSON, so core can still answer 401 for a bad token),
 * or `limit + 1` bytes (too large, so core answers 413). Registered at module init, which Nest runs after the
 * routes and before its own error handler.
 */
@Injectable()
export class BodyParserErrorBridge implements OnModuleInit {
  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(KIRIMBAYAR_WEBHOOK_ROUTES) private readonly routes: WebhookRoutes,
    @Inject(KIRIMBAYAR_WEBHOOK_PATH) private readonly prefix: string,
  ) {}

  onModuleInit(): void {
    // Webhooks read Node's request stream and mount Express middleware; on another platform every delivery would
    // fail, so the app refuses to start instead. Clients alone work on any platform.
    const platform = this.adapterHost.httpAdapter?.getType?.();
    if (this.routes.bySegment.size > 0 && platform !== undefined && platform !== "express") {
      throw new WebhookConfigurationError(
        `KirimbayarModule: webhooks need the Express platform (@nestjs/platform-express); this app runs on ` +
          `"${platform}". Create the app with the default Express adapter, or configure only API clients.`,
      );
    }
    const app = this.adapterHost.httpAdapter?.getInstance?.() as
      | { use?: (handler: (...args: never[]) => void) => void }
      | undefined;
    if (typeof app?.use !== "function") return;
    const prefix = `/${this.prefix.replace(/^\/+|\/+$/g, "")}/`;
    app.use((error: BodyParserError, req: NestWebhookRequest, res: ServerResponse, next: (error: unknown) => void) => {
      const path = (req.originalUrl ?? req.url ?? "").split("?")[0] ?? "";
      const at = path.lastIndexOf(prefix);
      const route = at === -1 ? undefined : this.routes.bySegment.get(path.slice(at + prefix.length));
      if (route === undefined || (error?.type !== "entity.parse.failed" && error?.type !== "entity.too.large")) {
        return next(error);
      }
      const tooLarge = error.type === "entity.too.large";
      if (tooLarge) req.resume();
      const rawBody = tooLarge ? new Uint8Array(route.maxBodyBytes + 1) : asBytes(req.rawBody);
      answerWebhook(route, req, res, rawBody).catch(next);
    });
  }
}

function asBytes(rawBody: unknown): Uint8Array | undefined {
  return rawBody instanceof Uint8Array
    ? new Uint8Array(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength)
    : undefined;
}
