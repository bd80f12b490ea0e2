import type { WebhookHttpRequest, WebhookHttpResponse } from "../contract.js";
import { withoutDecodedCoding } from "./content-coding.js";
import { type BodyReadLimits, declaresTooLargeBody } from "./limits.js";
import { type NodeBodySource, readNodeBody } from "./read-node-body.js";
import { bodyTooLarge } from "./refusals.js";

/**
 * The slice of a Node request the reader uses: Node's `IncomingMessage`, or the request of a framework on Node's
 * HTTP server (Express, NestJS on Express), whose body parser may have read the stream first and kept the bytes on
 * `rawBody` (its `verify` hook, Nest's `rawBody: true`) or left what it parsed on `body`. Structural, so core needs
 * no Node types.
 */
export interface NodeRequestLike extends NodeBodySource {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  /** The URL before a framework's router took its mount path off (Express's `originalUrl`). */
  readonly originalUrl?: string | undefined;
  readonly headers: Record<string, string | string[] | undefined>;
  /** Node's `readableEnded`: the stream was read to its end, by a body parser if not by the reader. */
  readonly readableEnded?: boolean;
  readonly socket?: { readonly remoteAddress?: string | undefined } | undefined;
  readonly rawBody?: unknown;
  readonly body?: unknown;
}

/** What {@link readNodeWebhookRequest} got: core's neutral request, or the answer core gives instead of reading on. */
export type NodeWebhookRequestRead = { request: WebhookHttpRequest } | { refusal: WebhookHttpResponse };

/**
 * Translates a Node request into core's neutral {@link WebhookHttpRequest}, choosing the body: the unread stream
 * if nobody consumed it (read under the receiver's limits: a declared `Content-Length` over `maxBodyBytes` is
 * refused 413 without reading, a body not whole in time 408); else the raw bytes a parser kept on `rawBody` (or a
 * `Buffer`/string it left on `body`), which body parsers have already inflated from gzip or deflate; else the
 * parsed object, which core answers with a diagnostic naming the mistake. The peer address is
 * `getRemoteAddress(req)` if given (e.g. `(req) => req.ip` behind a proxy), else the socket's. The Express and
 * NestJS adapters read webhooks with it; so can a Node handler of your own.
 *
 * @example
 * const read = await readNodeWebhookRequest(req, receiver);
 * const response = "refusal" in read ? read.refusal : await receiver.handle(read.request);
 */
export async function readNodeWebhookRequest<R extends NodeRequestLike>(
  req: R,
  limits: BodyReadLimits,
  getRemoteAddress?: (req: R) => string | undefined,
): Promise<NodeWebhookRequestRead> {
  let headers = req.headers;
  let rawBody: unknown;
  if (req.readableEnded === true) {
    rawBody = bodyLeftByParser(req);
    headers = withoutDecodedCoding(headers);
  } else if (declaresTooLargeBody(headers, limits.maxBodyBytes)) {
    return { refusal: bodyTooLarge(limits.maxBodyBytes) };
  } else {
    const body = await readNodeBody(req, limits);
    if (!(body instanceof Uint8Array)) return { refusal: body };
    rawBody = body;
  }
  const remoteAddress = getRemoteAddress === undefined ? req.socket?.remoteAddress : getRemoteAddress(req);
  return {
    request: { method: req.method ?? "GET", url: req.originalUrl ?? req.url ?? "/", headers, rawBody, remoteAddress },
  };
}

function bodyLeftByParser(req: NodeRequestLike): unknown {
  if (req.rawBody instanceof Uint8Array) return asBytes(req.rawBody);
  if (req.body instanceof Uint8Array) return asBytes(req.body);
  return req.body;
}

// A plain Uint8Array view, so core never hands on Node's Buffer subclass.
function asBytes(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
