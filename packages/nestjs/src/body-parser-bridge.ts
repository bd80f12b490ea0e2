import type { IncomingMessage, ServerResponse } from "node:http";
import { WebhookConfigurationError, type WebhookHttpResponse } from "@kirimbayar/core/webhooks";
import { bodyNotDecodable, contentCodingOf } from "@kirimbayar/core/webhooks/transport";
import { Inject, Injectable, type OnModuleInit } from "@nestjs/common";
import { HttpAdapterHost } from "@nestjs/core";
import { guardWebhookBodies, type RequestEmitter } from "./request-guard.js";
import { KIRIMBAYAR_WEBHOOK_PATH, KIRIMBAYAR_WEBHOOK_ROUTES } from "./tokens.js";
import { answerWebhook, type NestWebhookRequest } from "./webhook-controller.js";
import type { WebhookRoute, WebhookRoutes } from "./webhook-routes.js";

type BodyParserError = Error & { type?: unknown };

/**
 * Nest's global JSON parser runs before every route and answers some bodies itself, with its own status and body.
 * For webhook paths this module keeps core's HTTP contract instead:
 *
 * - a `request` listener on the HTTP server answers a declared oversize (413) and a body not whole in time (408)
 *   before the parser could hold the connection (see {@link guardWebhookBodies});
 * - an Express error middleware hands what the parser refused to core: the bytes its `rawBody` hook kept
 *   (malformed JSON, so core can still answer 401 for a bad token), `limit + 1` bytes (too large: core answers
 *   413), or the unread request (a charset or content coding the parser does not take: core ignores the charset,
 *   JSON being UTF-8, and answers 415 to codings other than gzip and deflate). Registered at module init, which
 *   Nest runs after the routes and before its own error handler.
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
    const adapter = this.adapterHost.httpAdapter;
    const platform = adapter?.getType?.();
    if (this.routes.bySegment.size > 0 && platform !== undefined && platform !== "express") {
      throw new WebhookConfigurationError(
        `KirimbayarModule: webhooks need the Express platform (@nestjs/platform-express); this app runs on ` +
          `"${platform}". Create the app with the default Express adapter, or configure only API clients.`,
      );
    }
    const app = adapter?.getInstance?.() as { use?: (handler: (...args: never[]) => void) => void } | undefined;
    if (typeof app?.use !== "function" || this.routes.bySegment.size === 0) return;
    const prefix = `/${this.prefix.replace(/^\/+|\/+$/g, "")}/`;
    const routeOf = (req: NestWebhookRequest): WebhookRoute | undefined => {
      const path = (req.originalUrl ?? req.url ?? "").split("?")[0] ?? "";
      const at = path.lastIndexOf(prefix);
      return at === -1 ? undefined : this.routes.bySegment.get(path.slice(at + prefix.length));
    };
    const server = adapter.getHttpServer?.() as RequestEmitter | undefined;
    if (typeof server?.on === "function") guardWebhookBodies(server, routeOf);
    app.use((error: BodyParserError, req: NestWebhookRequest, res: ServerResponse, next: (error: unknown) => void) => {
      const route = routeOf(req);
      if (route === undefined) return next(error);
      // The guard answered already; what the parser met afterwards (the closed connection) changes nothing.
      if (res.headersSent) return;
      switch (error?.type) {
        case "entity.too.large":
          (req as IncomingMessage).resume();
          return void answerWebhook(route, req, res, new Uint8Array(route.maxBodyBytes + 1)).catch(next);
        case "entity.parse.failed":
          return void answerWebhook(route, req, res, asBytes(req.rawBody)).catch(next);
        case "charset.unsupported":
        case "encoding.unsupported":
          return void answerWebhook(route, req, res).catch(next);
        default: {
          // A gzip or deflate body the parser could not inflate (zlib's Z_DATA_ERROR, Z_BUF_ERROR...): the parser
          // drained it, so core's answer is written here.
          const coding = contentCodingOf(req.headers);
          if (isZlibError(error) && (coding === "gzip" || coding === "deflate"))
            return write(res, bodyNotDecodable(coding));
          return next(error);
        }
      }
    });
  }
}

function isZlibError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && code.startsWith("Z_");
}

function write(res: ServerResponse, response: WebhookHttpResponse): void {
  res.writeHead(response.status, response.headers).end(response.body);
}

function asBytes(rawBody: unknown): Uint8Array | undefined {
  return rawBody instanceof Uint8Array
    ? new Uint8Array(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength)
    : undefined;
}
