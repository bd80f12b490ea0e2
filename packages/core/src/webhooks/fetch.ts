import type { WebhookHttpRequest, WebhookHttpResponse } from "./contract.js";
import { webhookResponse } from "./response.js";

/** What the Web-standard entry needs of a receiver. */
export interface FetchableReceiver {
  readonly maxBodyBytes: number;
  handle(request: WebhookHttpRequest): Promise<WebhookHttpResponse>;
}

/**
 * The Web-standard entry of a receiver (`receiver.fetch`): reads the body of a `Request` (bounded by
 * `maxBodyBytes`; a declared `Content-Length` above it is answered 413 without reading), hands it to `handle` and
 * turns the answer into a `Response`.
 */
export async function fetchEntry(
  receiver: FetchableReceiver,
  request: Request,
  info?: { remoteAddress?: string },
): Promise<Response> {
  const { maxBodyBytes } = receiver;
  const declared = Number(request.headers.get("content-length") ?? "0");
  const bytes = declared > maxBodyBytes ? undefined : await readBounded(request, maxBodyBytes);
  const response =
    bytes === undefined
      ? webhookResponse(413, `Body is larger than ${maxBodyBytes} bytes`)
      : await receiver.handle({
          method: request.method,
          url: request.url,
          headers: request.headers,
          rawBody: bytes,
          remoteAddress: info?.remoteAddress,
        });
  return new Response(response.body, { status: response.status, headers: response.headers });
}

async function readBounded(request: Request, limit: number): Promise<Uint8Array | undefined> {
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
