import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { WebhookHttpResponse } from "@kirimbayar/core/webhooks";
import { bodyTooLarge, declaresTooLargeBody, readNodeBody } from "@kirimbayar/core/webhooks/transport";
import { Logger } from "@nestjs/common";
import type { WebhookRoute } from "./webhook-routes.js";

// Everything here is structural: `fastify` and `@nestjs/platform-fastify` are optional peers, never imported, so an
// app on Express loads none of them.

/** The slice of a Fastify request the module reads. */
export interface FastifyRequestLike {
  readonly raw: IncomingMessage;
  readonly headers: IncomingHttpHeaders;
  readonly method: string;
  /** The URL as received (with the query, before any `rewriteUrl`): URL tokens are checked on it. */
  readonly originalUrl: string;
  readonly params: unknown;
  readonly socket: { readonly remoteAddress?: string | undefined };
  /** The route the request matched; `url` is its path pattern as registered (`/api/webhooks/:kirimbayarSource`). */
  readonly routeOptions: { readonly url?: string | undefined };
}

/** The slice of a Fastify reply the module writes. */
export interface FastifyReplyLike {
  readonly sent: boolean;
  code(status: number): FastifyReplyLike;
  headers(headers: Record<string, string>): FastifyReplyLike;
  serializer(serialize: (payload: unknown) => string): FastifyReplyLike;
  send(payload: string): FastifyReplyLike;
}

type PreParsingHook = (
  request: FastifyRequestLike,
  reply: FastifyReplyLike,
  payload: unknown,
  done: (error: Error | null, payload?: unknown) => void,
) => void;
type PreValidationHook = (request: FastifyRequestLike, reply: FastifyReplyLike, done: (error?: Error) => void) => void;

/** The slice of the Fastify instance (`app.getHttpAdapter().getInstance()`) the module hooks into. */
export interface FastifyInstanceLike {
  addHook(name: "preParsing", hook: PreParsingHook): unknown;
  addHook(name: "preValidation", hook: PreValidationHook): unknown;
  hasContentTypeParser(contentType: string): boolean;
  addContentTypeParser(
    contentType: string,
    parser: (
      request: FastifyRequestLike,
      payload: unknown,
      done: (error: Error | null, body?: unknown) => void,
    ) => void,
  ): unknown;
}

const logger = new Logger("KirimbayarModule");

/** The body bytes read for a webhook request (or what a host hook kept, when it consumed the stream first). */
const bodies = new WeakMap<IncomingMessage, unknown>();

// The headers that make Fastify run a content-type parser, taken off a webhook request while Fastify would parse it.
const BODY_HEADERS = ["content-type", "content-length", "transfer-encoding"] as const;

/**
 * The content type a webhook request whose body was read carries meanwhile when Fastify needs one (QUERY). Its
 * parser, added to the instance, reads nothing for such a request and refuses any other like an unknown type.
 */
const BODY_READ_TYPE = "application/x-kirimbayar-body-read";
const hiddenHeaders = new WeakMap<IncomingMessage, Partial<IncomingHttpHeaders>>();

/**
 * Reads the body of webhook requests on the Fastify platform, in place of the app's content-type parsers (Nest's
 * JSON parser, Fastify's defaults), which keep running for every other route. Two root hooks, added at module init
 * (after Nest registered the routes, before Fastify boots, which is when Fastify gives routes their hooks):
 *
 * - `preParsing`, where a parser would run: for a request `routeOf` knows, reads the raw bytes from Node's request
 *   stream with core's reader, under the receiver's limits: 413 at once for a declared `Content-Length` over
 *   `maxBodyBytes` (not a byte read), 413 past it while reading, 408 when the body is not whole within
 *   `bodyReadTimeoutMs`. Such a refusal is answered from the hook, before guards, interceptors and the controller,
 *   as the request guard and the body parser do on Express. Otherwise it keeps the bytes for the controller and
 *   takes the body headers off the request for a moment, so that Fastify, which has no per-route way to skip its
 *   parser, hands the request on without parsing (it parses only a request that declares a body; a QUERY request,
 *   which Fastify refuses without a content type, gets {@link BODY_READ_TYPE});
 * - `preValidation`, right after that step and before anything of Nest runs: puts the headers back, so guards,
 *   interceptors and core see the request as it came.
 *
 * @example
 * readWebhookBodiesOnFastify(app.getHttpAdapter().getInstance(), (request) => routes.bySegment.get(segmentOf(request)));
 */
export function readWebhookBodiesOnFastify(
  instance: FastifyInstanceLike,
  routeOf: (request: FastifyRequestLike) => WebhookRoute | undefined,
): void {
  instance.addHook("preParsing", (request, reply, payload, done) => {
    const route = routeOf(request);
    // Read once, even if two module instances claim the route.
    if (route === undefined || bodies.has(request.raw)) return done(null, payload);
    readBody(request, route).then(
      (read) => {
        if ("refusal" in read) return void send(reply, read.refusal);
        bodies.set(request.raw, read.body);
        hideBodyHeaders(request.raw);
        done(null, payload);
      },
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
  });
  instance.addHook("preValidation", (request, _reply, done) => {
    restoreBodyHeaders(request.raw);
    done();
  });
  if (!instance.hasContentTypeParser(BODY_READ_TYPE)) {
    instance.addContentTypeParser(BODY_READ_TYPE, (request, _payload, done) => {
      if (hiddenHeaders.has(request.raw)) return done(null, undefined);
      // Shaped like an "http-errors" error, which Nest answers with its status, as it does Fastify's own 415.
      done(Object.assign(new Error("Unsupported Media Type"), { statusCode: 415, status: 415, expose: true }));
    });
  }
}

/**
 * Hands a webhook request on the Fastify platform to a route's receiver and sends core's answer unchanged. The body
 * is the one the `preParsing` hook read (see {@link readWebhookBodiesOnFastify}); read here when the hook did not.
 *
 * @example
 * await answerFastifyWebhook(route, request, reply);
 */
export async function answerFastifyWebhook(
  route: WebhookRoute,
  request: FastifyRequestLike,
  reply: FastifyReplyLike,
): Promise<void> {
  if (reply.sent) return;
  restoreBodyHeaders(request.raw);
  let rawBody: unknown;
  if (bodies.has(request.raw)) {
    rawBody = bodies.get(request.raw);
  } else {
    const read = await readBody(request, route);
    if ("refusal" in read) return void send(reply, read.refusal);
    rawBody = read.body;
  }
  const response = await route.receiver.handle({
    method: request.method,
    url: request.originalUrl,
    headers: request.headers,
    rawBody,
    remoteAddress: request.socket.remoteAddress,
  });
  send(reply, response);
}

async function readBody(
  request: FastifyRequestLike,
  route: WebhookRoute,
): Promise<{ body: unknown } | { refusal: WebhookHttpResponse }> {
  const raw = request.raw;
  if (raw.readableEnded) {
    // A hook of the app (registered before this module's) consumed the stream: use the bytes it kept on
    // `request.rawBody`, if any; without them core answers 500 naming the problem.
    const kept = (request as FastifyRequestLike & { rawBody?: unknown }).rawBody;
    if (kept === undefined) {
      logger.error(
        "The webhook request body was read before KirimbayarModule could (by a preParsing hook of the app) and " +
          "no raw bytes were kept on request.rawBody, so the delivery cannot be verified. Leave the webhook paths " +
          "out of that hook.",
      );
    }
    return { body: kept instanceof Uint8Array ? new Uint8Array(kept.buffer, kept.byteOffset, kept.byteLength) : kept };
  }
  if (declaresTooLargeBody(request.headers, route.maxBodyBytes)) return { refusal: bodyTooLarge(route.maxBodyBytes) };
  const body = await readNodeBody(raw, route);
  return body instanceof Uint8Array ? { body } : { refusal: body };
}

function hideBodyHeaders(raw: IncomingMessage): void {
  const hidden: Partial<IncomingHttpHeaders> = {};
  for (const name of BODY_HEADERS) {
    hidden[name] = raw.headers[name];
    delete raw.headers[name];
  }
  // Fastify refuses a QUERY request without a content type; this one gets a type whose parser reads nothing.
  if (raw.method === "QUERY") raw.headers["content-type"] = BODY_READ_TYPE;
  hiddenHeaders.set(raw, hidden);
}

function restoreBodyHeaders(raw: IncomingMessage): void {
  const hidden = hiddenHeaders.get(raw);
  if (hidden === undefined) return;
  hiddenHeaders.delete(raw);
  for (const name of BODY_HEADERS) {
    if (hidden[name] === undefined) delete raw.headers[name];
    else raw.headers[name] = hidden[name] as string;
  }
}

/**
 * Sends core's answer as it is, as @kirimbayar/fastify does: the body as the string core made (Node's `http` writes
 * it joined to the headers, where a `Buffer` body takes a two-chunk write), with a serializer that passes it through
 * (one a host hook may have set on the reply cannot encode it again) and core's content type, which names the
 * charset, so Fastify adds none. A `Connection: close` header (408, 413 before reading) closes the connection once
 * the answer is written.
 */
function send(reply: FastifyReplyLike, response: WebhookHttpResponse): void {
  if (reply.sent) return;
  reply.code(response.status).headers(response.headers).serializer(asIs).send(response.body);
}

function asIs(payload: unknown): string {
  return payload as string;
}
