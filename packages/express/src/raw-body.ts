import type { IncomingMessage } from "node:http";
import type { WebhookHttpRequest, WebhookHttpResponse } from "@kirimbayar/core/webhooks";
import { type BodyReadLimits, readNodeWebhookRequest } from "@kirimbayar/core/webhooks/transport";

/** A request that a body parser may have read before us, possibly keeping the bytes through its `verify` hook. */
type MaybeParsedRequest = IncomingMessage & { body?: unknown; rawBody?: unknown; originalUrl?: string };

/** Options of {@link readWebhookRequest}. */
export interface ReadWebhookRequestOptions {
  /** The receiver's limits: `maxBodyBytes` (413 past it) and `bodyReadTimeoutMs` (408 when the body is not whole). */
  limits: BodyReadLimits;
  /** Where the peer address comes from; default `req.socket.remoteAddress`. Use `(req) => req.ip` behind a proxy. */
  getRemoteAddress?: ((req: IncomingMessage) => string | undefined) | undefined;
}

/** What {@link readWebhookRequest} got: core's neutral request, or the answer core gives instead of reading on. */
export type ReadWebhookRequestResult = { request: WebhookHttpRequest } | { refusal: WebhookHttpResponse };

/**
 * Translates a Node/Express request into core's neutral {@link WebhookHttpRequest}, choosing the body bytes:
 * the unread stream if nobody consumed it (read under the receiver's limits: a declared `Content-Length` over
 * `maxBodyBytes` is refused 413 without reading, a body not whole in time 408); else a raw body a parser's `verify`
 * hook kept on `req.rawBody` (or a `Buffer`/string left by `express.raw()`/`express.text()`), already decoded by the
 * parser; else the parsed object, which core answers with a diagnostic naming the mistake.
 *
 * @example
 * const read = await readWebhookRequest(req, { limits: receiver });
 * const response = "refusal" in read ? read.refusal : await receiver.handle(read.request);
 */
export function readWebhookRequest(
  req: IncomingMessage,
  options: ReadWebhookRequestOptions,
): Promise<ReadWebhookRequestResult> {
  // Core's reader, shared with the NestJS module on the Express platform.
  return readNodeWebhookRequest(req as MaybeParsedRequest, options.limits, options.getRemoteAddress);
}

/** What {@link answerNodeWebhook} needs of a receiver. */
export interface NodeWebhookTarget extends BodyReadLimits {
  handle(request: WebhookHttpRequest): Promise<WebhookHttpResponse>;
}

/**
 * Reads `req` under the receiver's limits, hands it to the receiver and returns core's answer (or the refusal that
 * replaced reading). For your own Node handlers: write the result with `res.writeHead(status, headers).end(body)`.
 *
 * @example
 * const response = await answerNodeWebhook(receiver, req);
 */
export async function answerNodeWebhook(
  receiver: NodeWebhookTarget,
  req: IncomingMessage,
  options: Omit<ReadWebhookRequestOptions, "limits"> = {},
): Promise<WebhookHttpResponse> {
  const read = await readWebhookRequest(req, { limits: receiver, getRemoteAddress: options.getRemoteAddress });
  return "refusal" in read ? read.refusal : receiver.handle(read.request);
}
