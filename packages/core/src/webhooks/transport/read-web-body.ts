import type { WebhookHttpResponse } from "../contract.js";
import { joinChunks } from "./bytes.js";
import type { BodyReadLimits } from "./limits.js";
import { bodyIncomplete, bodyReadTimedOut, bodyTooLarge } from "./refusals.js";

const TIMED_OUT = Symbol();

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
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), bodyReadTimeoutMs);
    (timer as { unref?: () => void }).unref?.();
  });
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const read = await Promise.race([reader.read(), deadline]);
      if (read === TIMED_OUT) return stop(reader, bodyReadTimedOut(bodyReadTimeoutMs));
      if (read.done) return joinChunks(chunks, total);
      total += read.value.byteLength;
      if (total > maxBodyBytes) return stop(reader, bodyTooLarge(maxBodyBytes));
      chunks.push(read.value);
    }
  } catch {
    return bodyIncomplete();
  } finally {
    clearTimeout(timer);
  }
}

function stop(reader: ReadableStreamDefaultReader<Uint8Array>, answer: WebhookHttpResponse): WebhookHttpResponse {
  // Not awaited: a stalled source may never settle its cancel.
  reader.cancel().catch(() => {});
  return answer;
}
