import type { WebhookHttpResponse } from "../contract.js";
import { readChunks } from "./bytes.js";
import type { BodyReadLimits } from "./limits.js";
import { bodyIncomplete, bodyReadTimedOut, bodyTooLarge } from "./refusals.js";

/**
 * Reads a Web `ReadableStream` body under the receiver's limits: the bytes, or the answer core gives instead
 * (413 past `maxBodyBytes`, 408 when not whole within `bodyReadTimeoutMs`, 400 when the stream fails). The stream
 * is cancelled as soon as the answer is known.
 *
 * @example
 * const body = await readWebBody(request.body, receiver);
 */
export async function readWebBody(
  body: ReadableStream<Uint8Array> | null,
  limits: BodyReadLimits,
): Promise<Uint8Array | WebhookHttpResponse> {
  if (body === null) return new Uint8Array(0);
  const { maxBodyBytes, bodyReadTimeoutMs } = limits;
  const reader = body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<WebhookHttpResponse>((resolve) => {
    timer = setTimeout(() => resolve(bodyReadTimedOut(bodyReadTimeoutMs)), bodyReadTimeoutMs);
    (timer as { unref?: () => void }).unref?.();
  });
  try {
    return await readChunks(reader, maxBodyBytes, bodyTooLarge, bodyIncomplete, deadline);
  } finally {
    clearTimeout(timer);
  }
}
