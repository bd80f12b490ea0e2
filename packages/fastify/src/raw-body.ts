import type { WebhookHttpRequest, WebhookHttpResponse } from "@kirimbayar/core/webhooks";
import {
  type BodyReadLimits,
  bodyTooLarge,
  declaresTooLargeBody,
  readNodeBody,
} from "@kirimbayar/core/webhooks/transport";
import type { FastifyRequest } from "fastify";

/** Options of {@link readFastifyWebhookRequest}. */
export interface ReadFastifyWebhookRequestOptions {
  /** The receiver's limits: `maxBodyBytes` (413 past it) and `bodyReadTimeoutMs` (408 when the body is not whole). */
  limits: BodyReadLimits;
  /** Where the peer address comes from; default `request.socket.remoteAddress`. Behind a proxy: `(r) => r.ip`. */
  getRemoteAddress?: ((request: FastifyRequest) => string | undefined) | undefined;
}

/** What {@link readFastifyWebhookRequest} got: core's neutral request, or the answer core gives instead of reading. */
export type ReadFastifyWebhookRequestResult = { request: WebhookHttpRequest } | { refusal: WebhookHttpResponse };

/**
 * Translates a Fastify request into core's neutral {@link WebhookHttpRequest}, reading the body bytes from Node's
 * request stream (`request.raw`) under the receiver's limits: a declared `Content-Length` over `maxBodyBytes` is
 * refused 413 before any byte is read, a body not whole within `bodyReadTimeoutMs` gets 408. The stream must be
 * unread, as it is on the webhook plugin's routes (their content-type parser passes it through). If a host hook
 * consumed it first (a global `preParsing` hook such as fastify-raw-body's), the bytes that hook kept on
 * `request.rawBody` are used; without them core answers 500 naming the problem.
 *
 * @example
 * const read = await readFastifyWebhookRequest(request, { limits: receiver });
 * const response = "refusal" in read ? read.refusal : await receiver.handle(read.request);
 */
export async function readFastifyWebhookRequest(
  request: FastifyRequest,
  options: ReadFastifyWebhookRequestOptions,
): Promise<ReadFastifyWebhookRequestResult> {
  const headers = request.headers;
  const raw = request.raw;
  let rawBody: unknown;
  if (raw.readableEnded) {
    rawBody = bodyKeptByHook(request);
  } else if (declaresTooLargeBody(headers, options.limits.maxBodyBytes)) {
    return { refusal: bodyTooLarge(options.limits.maxBodyBytes) };
  } else {
    const body = await readNodeBody(raw, options.limits);
    if (!(body instanceof Uint8Array)) return { refusal: body };
    rawBody = body;
  }
  const remoteAddress = options.getRemoteAddress ? options.getRemoteAddress(request) : request.socket.remoteAddress;
  return {
    request: {
      method: request.method,
      // As received, before any `rewriteUrl`: URL tokens are checked on it.
      url: request.originalUrl,
      headers,
      rawBody,
      remoteAddress,
    },
  };
}

function bodyKeptByHook(request: FastifyRequest): unknown {
  const kept = (request as FastifyRequest & { rawBody?: unknown }).rawBody;
  if (kept instanceof Uint8Array) return new Uint8Array(kept.buffer, kept.byteOffset, kept.byteLength);
  // A string is taken as is; anything else (nothing kept) makes core answer 500 with a diagnostic.
  return kept;
}
