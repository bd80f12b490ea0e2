import type { IncomingMessage } from "node:http";
import type { WebhookHttpRequest } from "@kirimbayar/core/webhooks";

/** A request that a body parser may have read before us, possibly keeping the bytes through its `verify` hook. */
type MaybeParsedRequest = IncomingMessage & { body?: unknown; rawBody?: unknown; originalUrl?: string };

/**
 * Reads the body of `req` as bytes, at most `limit + 1` of them.
 *
 * Past the limit it keeps draining (and dropping) the stream, so the client finishes sending and can read our
 * answer; handing `limit + 1` bytes to core is what makes core answer 413.
 *
 * @example
 * const bytes = await readRawBody(req, 65_536);
 */
export function readRawBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    req.on("data", (chunk: Buffer) => {
      if (length > limit) return;
      chunks.push(chunk);
      length += chunk.length;
    });
    req.once("end", () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
      resolve(asBytes(length > limit ? body.subarray(0, limit + 1) : body));
    });
    req.once("error", reject);
  });
}

/** Options of {@link toWebhookRequest}. */
export interface ToWebhookRequestOptions {
  /** Largest body read from the stream; anything longer reaches core as `limit + 1` bytes (413). */
  maxBodyBytes: number;
  /** Where the peer address comes from; default `req.socket.remoteAddress`. Use `(req) => req.ip` behind a proxy. */
  getRemoteAddress?: ((req: IncomingMessage) => string | undefined) | undefined;
}

/**
 * Translates a Node/Express request into core's neutral {@link WebhookHttpRequest}, choosing the body bytes:
 * the unread stream if nobody consumed it; else a raw body a parser's `verify` hook kept on `req.rawBody`
 * (or a `Buffer`/string left by `express.raw()`/`express.text()`); else the parsed object, which core answers with a
 * diagnostic naming the mistake.
 *
 * @example
 * const response = await receiver.handle(await toWebhookRequest(req, { maxBodyBytes: 65_536 }));
 */
export async function toWebhookRequest(
  req: IncomingMessage,
  options: ToWebhookRequestOptions,
): Promise<WebhookHttpRequest> {
  const parsed = req as MaybeParsedRequest;
  const rawBody = parsed.readableEnded ? bodyLeftByParser(parsed) : await readRawBody(req, options.maxBodyBytes);
  return {
    method: req.method ?? "GET",
    url: parsed.originalUrl ?? req.url ?? "/",
    headers: req.headers,
    rawBody,
    remoteAddress: options.getRemoteAddress ? options.getRemoteAddress(req) : req.socket.remoteAddress,
  };
}

function bodyLeftByParser(req: MaybeParsedRequest): unknown {
  if (req.rawBody instanceof Uint8Array) return asBytes(req.rawBody);
  if (req.body instanceof Uint8Array) return asBytes(req.body);
  return req.body;
}

// A plain Uint8Array view, so core never sees Node's Buffer subclass.
function asBytes(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
