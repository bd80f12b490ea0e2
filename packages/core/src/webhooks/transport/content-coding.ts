import type { WebhookHeadersInput, WebhookHttpResponse } from "../contract.js";
import { readHeader } from "../headers.js";
import { readChunks } from "./bytes.js";
import { bodyNotDecodable, decodedBodyTooLarge } from "./refusals.js";

/** A body coding core decodes, named as `DecompressionStream` knows it (`deflate` is zlib-wrapped, as in HTTP). */
export type DecodableCoding = "gzip" | "deflate";

const DECODABLE: Readonly<Record<string, DecodableCoding>> = { gzip: "gzip", "x-gzip": "gzip", deflate: "deflate" };

/**
 * The body coding a request declares: `"identity"` (none), one core decodes, or `"unsupported"` (anything else,
 * including several codings stacked), which core answers 415.
 */
export function contentCodingOf(headers: WebhookHeadersInput): DecodableCoding | "identity" | "unsupported" {
  const declared = readHeader(headers, "content-encoding")?.trim().toLowerCase();
  if (declared === undefined || declared === "" || declared === "identity") return "identity";
  return DECODABLE[declared] ?? "unsupported";
}

/**
 * Headers for a body a parser already decoded (Express's and Nest's body parsers inflate gzip and deflate before
 * their `verify` hook keeps the bytes): the `Content-Encoding` core would decode again is dropped. Any other coding
 * is kept, so core answers it 415 as it does for every adapter.
 */
export function withoutDecodedCoding<H extends WebhookHeadersInput>(headers: H): H {
  const coding = contentCodingOf(headers);
  if (coding === "identity" || coding === "unsupported") return headers;
  if (headers instanceof Headers) {
    const copy = new Headers(headers);
    copy.delete("content-encoding");
    return copy as H;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  const copy: Record<string, string | string[] | undefined> = {};
  for (const name in record) if (name.toLowerCase() !== "content-encoding") copy[name] = record[name];
  return copy as H;
}

/**
 * Decodes a gzip or deflate body, stopping as soon as the decoded bytes pass `maxBodyBytes` (413), so a small
 * compressed bomb never expands in memory; a body that is not valid for its coding gets 400.
 */
export async function decodeBody(
  bytes: Uint8Array,
  coding: DecodableCoding,
  maxBodyBytes: number,
): Promise<Uint8Array | WebhookHttpResponse> {
  const reader = new Blob([bytes as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new DecompressionStream(coding))
    .getReader();
  return readChunks(reader, maxBodyBytes, decodedBodyTooLarge, () => bodyNotDecodable(coding));
}
