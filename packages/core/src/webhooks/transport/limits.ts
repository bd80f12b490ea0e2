import type { WebhookHeadersInput } from "../contract.js";
import { readHeader } from "../headers.js";

/** How much body an adapter reads for one receiver, and for how long. Every receiver exposes both. */
export interface BodyReadLimits {
  readonly maxBodyBytes: number;
  readonly bodyReadTimeoutMs: number;
}

/**
 * Whether the request declares a `Content-Length` above `maxBodyBytes` (and no `Transfer-Encoding`, which would
 * override it). Such a request is answered 413 before any byte of its body is read.
 */
export function declaresTooLargeBody(headers: WebhookHeadersInput, maxBodyBytes: number): boolean {
  const declared = readHeader(headers, "content-length");
  // Transfer-Encoding is looked up only for the rare oversize, off the path of every delivery.
  return (
    declared !== undefined && Number(declared) > maxBodyBytes && readHeader(headers, "transfer-encoding") === undefined
  );
}
