import type { WebhookHttpResponse } from "../contract.js";

/** Joins chunks into one `Uint8Array`; a single chunk (the usual webhook) is returned as is, without a copy. */
export function joinChunks(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Reads `reader` to its end into one `Uint8Array`, or the answer core gives instead: `tooLarge(maxBodyBytes)` as
 * soon as the bytes pass `maxBodyBytes`, what `deadline` settles with if it settles first, `failed()` when the
 * stream errors. The stream is cancelled as soon as a limit answers. Shared by the Web body reader and the
 * gzip/deflate decoder, which differ only in these answers.
 */
export async function readChunks(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  maxBodyBytes: number,
  tooLarge: (maxBodyBytes: number) => WebhookHttpResponse,
  failed: () => WebhookHttpResponse,
  deadline?: Promise<WebhookHttpResponse>,
): Promise<Uint8Array | WebhookHttpResponse> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const read = await (deadline === undefined ? reader.read() : Promise.race([reader.read(), deadline]));
      // A read result always has `done`; the deadline's answer is a response.
      if (!("done" in read)) return stop(reader, read);
      if (read.done) return joinChunks(chunks, total);
      total += read.value.byteLength;
      if (total > maxBodyBytes) return stop(reader, tooLarge(maxBodyBytes));
      chunks.push(read.value);
    }
  } catch {
    return failed();
  }
}

function stop(reader: ReadableStreamDefaultReader<Uint8Array>, answer: WebhookHttpResponse): WebhookHttpResponse {
  // Not awaited: a stalled source may never settle its cancel.
  reader.cancel().catch(() => {});
  return answer;
}
