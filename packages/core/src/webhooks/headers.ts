import type { WebhookHeadersInput } from "./contract.js";

/** Reads one header, case-insensitively, from a Web `Headers` or a Node-style record; repeated values are joined. */
export function readHeader(headers: WebhookHeadersInput, lowerCaseName: string): string | undefined {
  if (isWebHeaders(headers)) return headers.get(lowerCaseName) ?? undefined;
  let value = headers[lowerCaseName];
  if (value === undefined) {
    // Node lower-cases incoming header names; records built by hand may not.
    for (const name in headers) {
      if (name.length === lowerCaseName.length && name.toLowerCase() === lowerCaseName) {
        value = headers[name];
        break;
      }
    }
  }
  if (value === undefined) return undefined;
  return typeof value === "string" ? value : value.join(", ");
}

/** A Web `Headers` copy of the input, for handlers (built only when a handler asks for it). */
export function toWebHeaders(headers: WebhookHeadersInput): Headers {
  if (isWebHeaders(headers)) return headers;
  const out = new Headers();
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    // Pseudo-headers of HTTP/2 (`:path`) are not valid header names.
    if (name.startsWith(":")) continue;
    for (const item of typeof value === "string" ? [value] : value) {
      try {
        out.append(name, item);
      } catch {
        // A value `Headers` refuses (e.g. a control character) is left out of the handler's copy; the raw input
        // was already used for verification.
      }
    }
  }
  return out;
}

function isWebHeaders(headers: WebhookHeadersInput): headers is Headers {
  return typeof (headers as Headers).get === "function" && typeof (headers as Headers).forEach === "function";
}
