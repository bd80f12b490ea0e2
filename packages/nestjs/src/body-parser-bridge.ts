import type { IncomingMessage, ServerResponse } from "node:http";
import { WebhookConfigurationError, type WebhookHttpResponse } from "@kirimbayar/core/webhooks";
import { bodyNotDecodable, contentCodingOf } from "@kirimbayar/core/webhooks/transport";
import { Inject, Injectable, type OnModuleInit } from "@nestjs/common";
import { HttpAdapterHost } from "@nestjs/core";
import { type FastifyInstanceLike, readWebhookBodiesOnFastify } from "./fastify-platform.js";
import { guardWebhookBodies, type RequestEmitter } from "./request-guard.js";
import { KIRIMBAYAR_WEBHOOK_PATH, KIRIMBAYAR_WEBHOOK_ROUTES } from "./tokens.js";
import { answerWebhook, type NestWebhookRequest, WEBHOOK_SOURCE_PARAM } from "./webhook-controller.js";
import type { WebhookRoute, WebhookRoutes } from "./webhook-routes.js";

type BodyParserError = Error & { type?: unknown };

/**
 * Where the webhook routes get their body on each platform; at module init, which Nest runs after registering the
 * routes and before its own error handler (and, on Fastify, before the instance boots).
 *
 * Express (`@nestjs/platform-express`): Nest's global JSON parser runs before every route and answers some bodies
 * itself, with its own status and body. For webhook paths this module keeps core's HTTP contract instead:
 *
 * - a `request` listener on the HTTP server answers a declared oversize (413) and a body not whole in time (408)
 *   before the parser could hold the connection (see {@link guardWebhookBodies});
 * - an Express error middleware hands what the parser refused to core: the bytes its `rawBody` hook kept
 *   (malformed JSON, so core can still answer 401 for a bad token), `limit + 1` bytes (too large: core answers
 *   413), or the unread request (a charset or content coding the parser does not take: core ignores the charset,
 *   JSON being UTF-8, and answers 415 to codings other than gzip and deflate). A coding core refuses but the
 *   parser inflates (br on Express 5) gets core's 415 too, even when inflating failed or grew past the limit.
 *
 * Fastify (`@nestjs/platform-fastify`): the webhook routes' bodies are read by the module's own hooks, in place of
 * the app's content-type parsers, under the receiver's limits; no `rawBody: true` needed (see
 * {@link readWebhookBodiesOnFastify}).
 *
 * Any other platform: an app with webhooks refuses to start (clients alone work on any platform).
 */
@Injectable()
export class BodyParserErrorBridge implements OnModuleInit {
  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(KIRIMBAYAR_WEBHOOK_ROUTES) private readonly routes: WebhookRoutes,
    @Inject(KIRIMBAYAR_WEBHOOK_PATH) private readonly prefix: string,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (adapter === undefined || adapter === null || this.routes.bySegment.size === 0) return;
    const platform = adapter.getType?.();
    if (platform === "fastify") {
      this.onFastify(adapter.getInstance() as FastifyInstanceLike);
    } else if (platform === undefined || platform === "express") {
      this.onExpress(adapter);
    } else {
      // Webhooks read Node's request stream through the platform's request objects; on another platform every
      // delivery would fail, so the app refuses to start instead.
      throw new WebhookConfigurationError(
        `KirimbayarModule: webhooks need the Express or the Fastify platform (@nestjs/platform-express, ` +
          `@nestjs/platform-fastify); this app runs on "${platform}". Create the app with one of their adapters, ` +
          "or configure only API clients.",
      );
    }
  }

  private onFastify(instance: FastifyInstanceLike): void {
    if (typeof instance?.addHook !== "function") {
      throw new WebhookConfigurationError(
        "KirimbayarModule: the Fastify platform's instance has no addHook(); webhooks cannot read request bodies.",
      );
    }
    const base = trimSlashes(this.prefix);
    const suffix = `${base === "" ? "" : `/${base}`}/:${WEBHOOK_SOURCE_PARAM}`;
    readWebhookBodiesOnFastify(instance, (request) => {
      const segment = (request.params as Record<string, unknown> | null | undefined)?.[WEBHOOK_SOURCE_PARAM];
      if (typeof segment !== "string") return undefined;
      // The route the request matched, by its path pattern: this controller's, under any global prefix or version.
      return request.routeOptions.url?.endsWith(suffix) === true ? this.routes.bySegment.get(segment) : undefined;
    });
  }

  private onExpress(adapter: HttpAdapterHost["httpAdapter"]): void {
    const app = adapter.getInstance?.() as { use?: (handler: (...args: never[]) => void) => void } | undefined;
    if (typeof app?.use !== "function") return;
    const prefix = `/${trimSlashes(this.prefix)}/`;
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
      const coding = contentCodingOf(req.headers);
      // A coding core refuses (br, which Nest's parser inflates on Express 5, or stacked codings): core answers 415
      // whatever the bytes, so what the parser met while inflating them (invalid data, too large once inflated)
      // must not replace that answer. Core decides on the request without the bytes the parser drained; a declared
      // length over the limit was answered 413 by the guard already.
      if (coding === "unsupported" && (error?.type === "entity.too.large" || isDecodingError(error))) {
        (req as IncomingMessage).resume();
        return void answerWebhook(route, req, res, new Uint8Array(0)).catch(next);
      }
      switch (error?.type) {
        case "entity.too.large":
          (req as IncomingMessage).resume();
          return void answerWebhook(route, req, res, new Uint8Array(route.maxBodyBytes + 1)).catch(next);
        case "entity.parse.failed":
          return void answerWebhook(route, req, res, asBytes(req.rawBody)).catch(next);
        case "charset.unsupported":
        case "encoding.unsupported":
          return void answerWebhook(route, req, res).catch(next);
        default:
          // A gzip or deflate body the parser could not inflate (zlib's Z_DATA_ERROR, Z_BUF_ERROR...): the parser
          // drained it, so core's answer is written here.
          if (isDecodingError(error) && (coding === "gzip" || coding === "deflate"))
            return write(res, bodyNotDecodable(coding));
          return next(error);
      }
    });
  }
}

function trimSlashes(path: string): string {
  return path.replace(/^\/+|\/+$/g, "");
}

/**
 * An error of Node's zlib streams: zlib's codes (`Z_DATA_ERROR`, `Z_BUF_ERROR` for a truncated stream) and the
 * brotli decoder's (`ERR__ERROR_FORMAT_PADDING_2`..., `ERR_` followed by the decoder's `_ERROR_...` name).
 */
function isDecodingError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && (code.startsWith("Z_") || code.startsWith("ERR__ERROR_"));
}

function write(res: ServerResponse, response: WebhookHttpResponse): void {
  res.writeHead(response.status, response.headers).end(response.body);
}

function asBytes(rawBody: unknown): Uint8Array | undefined {
  return rawBody instanceof Uint8Array
    ? new Uint8Array(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength)
    : undefined;
}
