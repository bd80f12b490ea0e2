import type { WebhookHttpRequest, WebhookHttpResponse } from "@kirimbayar/core/webhooks";
import {
  type BodyReadLimits,
  bodyTooLarge,
  declaresTooLargeBody,
  readNodeBodyThen,
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
export function readFastifyWebhookRequest(
  request: FastifyRequest,
  options: ReadFastifyWebhookRequestOptions,
): Promise<ReadFastifyWebhookRequestResult> {
  return new Promise((resolve, reject) => readFastifyWebhookRequestThen(request, options, resolve, reject));
}

/**
 * {@link readFastifyWebhookRequest} with callbacks, for the plugin's content-type parser, which reads in a callback
 * anyway: no promise and no microtask turn per delivery (bench/adapters: about 4 % of the webhook route's
 * instructions per request went to the promise layers). Exactly one of `resolve` and `reject` is called, once;
 * `reject` only with what `getRemoteAddress` or a request getter threw.
 */
export function readFastifyWebhookRequestThen(
  request: FastifyRequest,
  options: ReadFastifyWebhookRequestOptions,
  resolve: (read: ReadFastifyWebhookRequestResult) => void,
  reject: (error: unknown) => void,
): void {
  let headers: FastifyRequest["headers"];
  try {
    headers = request.headers;
    const raw = request.raw;
    if (raw.readableEnded) {
      resolve(readRequest(request, options, headers, bodyKeptByHook(request)));
      return;
    }
    const maxBodyBytes = options.limits.maxBodyBytes;
    if (declaresTooLargeBody(headers, maxBodyBytes)) {
      resolve({ refusal: bodyTooLarge(maxBodyBytes) });
      return;
    }
    readNodeBodyThen(raw, options.limits, (body) => {
      if (!(body instanceof Uint8Array)) return resolve({ refusal: body });
      // Runs in the stream's `end` listener: what throws here must reach `reject`, not the event emitter.
      let read: ReadFastifyWebhookRequestResult;
      try {
        read = readRequest(request, options, headers, body);
      } catch (error) {
        return reject(error);
      }
      resolve(read);
    });
  } catch (error) {
    reject(error);
  }
}

function readRequest(
  request: FastifyRequest,
  options: ReadFastifyWebhookRequestOptions,
  headers: FastifyRequest["headers"],
  rawBody: unknown,
): ReadFastifyWebhookRequestResult {
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
