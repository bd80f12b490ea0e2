import type { WebhookHttpRequest, WebhookHttpResponse } from "./contract.js";
import { type BodyReadLimits, declaresTooLargeBody } from "./transport/limits.js";
import { readWebBody } from "./transport/read-web-body.js";
import { bodyTooLarge } from "./transport/refusals.js";

/** What the Web-standard entry needs of a receiver. */
export interface FetchableReceiver extends BodyReadLimits {
  handle(request: WebhookHttpRequest): Promise<WebhookHttpResponse>;
}

/**
 * The Web-standard entry of a receiver (`receiver.fetch`): reads the body of a `Request` under the receiver's
 * limits (a declared `Content-Length` above `maxBodyBytes` is answered 413 without reading; a body not whole within
 * `bodyReadTimeoutMs` 408), hands it to `handle` and turns the answer into a `Response`.
 */
export async function fetchEntry(
  receiver: FetchableReceiver,
  request: Request,
  info?: { remoteAddress?: string },
): Promise<Response> {
  const body = declaresTooLargeBody(request.headers, receiver.maxBodyBytes)
    ? bodyTooLarge(receiver.maxBodyBytes)
    : await readWebBody(request.body, receiver);
  const response =
    body instanceof Uint8Array
      ? await receiver.handle({
          method: request.method,
          url: request.url,
          headers: request.headers,
          rawBody: body,
          remoteAddress: info?.remoteAddress,
        })
      : body;
  return new Response(response.body, { status: response.status, headers: response.headers });
}
