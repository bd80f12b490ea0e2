import type { WebhookHttpResponse } from "../contract.js";
import { joinChunks } from "./bytes.js";
import type { BodyReadLimits } from "./limits.js";
import { bodyIncomplete, bodyReadTimedOut, bodyTooLarge } from "./refusals.js";

/**
 * The slice of Node's `IncomingMessage` (or any Node `Readable`) the reader uses; structural, so core needs no Node
 * types and runs where Node is absent.
 */
export interface NodeBodySource {
  /** Node's `IncomingMessage.complete`: the whole body has been received (then it cannot stall: no deadline). */
  readonly complete?: boolean;
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "end" | "close", listener: () => void): unknown;
  on(event: "error", listener: (error: unknown) => void): unknown;
}

/**
 * Reads a Node request body under the receiver's limits: the bytes, or the answer core gives instead.
 *
 * - More than `maxBodyBytes`: 413. The reader keeps draining (and dropping) the rest so the client finishes
 *   sending and reads the answer, but no longer than the deadline.
 * - Not whole within `bodyReadTimeoutMs` (a stalled body, or fewer bytes than `Content-Length` declared): 408.
 * - The stream failed or closed before its end (client aborted): 400, for whatever can still be written.
 *
 * Check {@link declaresTooLargeBody} first: a declared oversize is answered without reading at all.
 *
 * @example
 * const body = await readNodeBody(req, receiver);
 * const response = body instanceof Uint8Array ? await receiver.handle({ ...parts, rawBody: body }) : body;
 */
export function readNodeBody(
  source: NodeBodySource,
  limits: BodyReadLimits,
): Promise<Uint8Array | WebhookHttpResponse> {
  return new Promise((resolve) => readNodeBodyThen(source, limits, resolve));
}

/**
 * {@link readNodeBody} for an adapter that reads in a callback: `settle` is called once, with the bytes or the answer
 * core gives instead, under the same limits. An adapter reading in a callback anyway (Fastify's content-type parser)
 * then pays for no promise and no microtask turn per delivery. `settle` runs in the stream's listeners, so it must not
 * throw.
 *
 * @example
 * readNodeBodyThen(request.raw, receiver, (body) => done(null, body instanceof Uint8Array ? body : undefined));
 */
export function readNodeBodyThen(
  source: NodeBodySource,
  limits: BodyReadLimits,
  settle: (outcome: Uint8Array | WebhookHttpResponse) => void,
): void {
  const { maxBodyBytes, bodyReadTimeoutMs } = limits;
  const chunks: Uint8Array[] = [];
  let total = 0;
  let settled = false;
  const settleOnce = (outcome: Uint8Array | WebhookHttpResponse) => {
    if (settled) return;
    settled = true;
    clearTimeout(deadline);
    settle(outcome);
  };
  // A body already received whole (a small webhook usually is) needs no deadline, nor a timer per delivery.
  const deadline =
    source.complete === true
      ? undefined
      : setTimeout(
          () => settleOnce(total > maxBodyBytes ? bodyTooLarge(maxBodyBytes) : bodyReadTimedOut(bodyReadTimeoutMs)),
          bodyReadTimeoutMs,
        );
  (deadline as { unref?: () => void } | undefined)?.unref?.();
  source.on("data", (chunk) => {
    total += chunk.byteLength;
    if (!settled && total <= maxBodyBytes) chunks.push(chunk);
  });
  source.on("end", () => settleOnce(total > maxBodyBytes ? bodyTooLarge(maxBodyBytes) : joinChunks(chunks, total)));
  // Listeners stay attached after settling: an `error` without a listener would crash the process. `close`
  // follows every request, so the answer is built only when it is still needed.
  const incomplete = () => {
    if (!settled) settleOnce(bodyIncomplete());
  };
  source.on("error", incomplete);
  source.on("close", incomplete);
}
