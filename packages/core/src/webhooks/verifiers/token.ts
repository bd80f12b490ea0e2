import { timingSafeEqual, timingSafeEqualStrings } from "../../crypto/types.js";
import { WebhookConfigurationError } from "../errors.js";
import { keepSecretsForRedaction } from "./secret-hook.js";
import { type SecretList, secretBytes } from "./secrets.js";
import {
  type RequestVerifier,
  VERIFIED,
  type VerificationRequest,
  type VerificationResult,
  verificationFailed,
} from "./types.js";

/** Options of {@link tokenVerifier}. */
export interface TokenVerifierOptions {
  /** The expected token, or a list during a rotation. */
  secrets: SecretList;
  /**
   * Where the sender puts the token: a query parameter of the registered URL (`?token=...`), a path segment
   * (`/webhooks/orders/<token>`) or a header.
   */
  in: "query" | "path" | "header";
  /** Query parameter or header name. Defaults: `token` for the query, `x-webhook-token` for a header. */
  name?: string;
  /** For `in: "path"`: which segment holds the token, negative counting from the end. Default `-1` (the last). */
  segment?: number;
}

/**
 * Verifies a secret token carried in the registered URL or a header, in constant time against every configured
 * secret. The providers that sign nothing (QR events, order status) are protected this way: register
 * `https://shop.example/webhooks/orders?token=<long random>` with the provider.
 *
 * @example
 * const orders = createWebhookReceiver({
 *   source: "orders",
 *   verify: [tokenVerifier({ secrets: [process.env.ORDER_WEBHOOK_TOKEN!], in: "query", name: "token" })],
 * });
 */
export function tokenVerifier(options: TokenVerifierOptions): RequestVerifier {
  // Validated like every secret (non-empty, no whitespace), then compared as strings: no encoding per delivery.
  secretBytes("tokenVerifier", options.secrets);
  const expected: readonly string[] = typeof options.secrets === "string" ? [options.secrets] : [...options.secrets];
  const where = options.in;
  if (where !== "query" && where !== "path" && where !== "header") {
    throw new WebhookConfigurationError(`tokenVerifier: "in" must be "query", "path" or "header"`);
  }
  const name = options.name ?? (where === "header" ? "x-webhook-token" : "token");
  const lowerName = name.toLowerCase();
  const segment = options.segment ?? -1;
  const read = (request: VerificationRequest): string | undefined => {
    if (where === "header") return request.header(lowerName);
    if (where === "query") return queryParameter(request.url, name);
    return pathSegment(request.url, segment);
  };
  const missing =
    where === "header"
      ? `header ${name} is missing`
      : where === "query"
        ? `query parameter "${name}" is missing from the URL`
        : "the token path segment is missing from the URL";
  const verifier: RequestVerifier = {
    kind: "request",
    name: "token",
    verify(request): VerificationResult {
      const token = read(request);
      if (token === undefined || token === "") return verificationFailed(missing);
      return matchesAnyString(token, expected)
        ? VERIFIED
        : verificationFailed(`the webhook token (${where}) is not valid`);
    },
  };
  return keepSecretsForRedaction(verifier, expected);
}

/** True when `candidate` equals one of `secrets`; every secret is compared, so timing does not tell which. */
export function matchesAny(candidate: Uint8Array, secrets: readonly Uint8Array[]): boolean {
  let matched = false;
  for (const secret of secrets) matched = timingSafeEqual(candidate, secret) || matched;
  return matched;
}

function matchesAnyString(candidate: string, secrets: readonly string[]): boolean {
  let matched = false;
  for (const secret of secrets) matched = timingSafeEqualStrings(candidate, secret) || matched;
  return matched;
}

function queryString(url: string): string | undefined {
  const start = url.indexOf("?");
  if (start < 0) return undefined;
  const hash = url.indexOf("#", start);
  return url.slice(start + 1, hash < 0 ? undefined : hash);
}

function queryParameter(url: string, name: string): string | undefined {
  const query = queryString(url);
  if (query === undefined) return undefined;
  // In plain ASCII without `%` or `+` nothing is decoded, so splitting on `&` reads exactly what URLSearchParams
  // would, without building one per delivery; anything else goes through URLSearchParams.
  const values =
    isUndecoded(query) && isUndecoded(name) && !name.includes("=")
      ? plainQueryValues(query.startsWith("?") ? query.slice(1) : query, name)
      : new URLSearchParams(query).getAll(name);
  // Two tokens in one URL are ambiguous: refuse rather than pick one.
  return values.length === 1 ? values[0] : undefined;
}

function isUndecoded(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80 || code === 0x25 /* % */ || code === 0x2b /* + */) return false;
  }
  return true;
}

// The values of `name` in a query string that needs no decoding; empty parts are skipped, as URLSearchParams does.
function plainQueryValues(query: string, name: string): string[] {
  const values: string[] = [];
  let start = 0;
  while (start <= query.length) {
    let end = query.indexOf("&", start);
    if (end < 0) end = query.length;
    const equals = query.indexOf("=", start);
    const nameEnd = equals < 0 || equals > end ? end : equals;
    if (end > start && nameEnd - start === name.length && query.startsWith(name, start)) {
      values.push(nameEnd === end ? "" : query.slice(nameEnd + 1, end));
    }
    start = end + 1;
  }
  return values;
}

function pathSegment(url: string, segment: number): string | undefined {
  let path = url;
  const schemeEnd = path.indexOf("://");
  if (schemeEnd >= 0) {
    const pathStart = path.indexOf("/", schemeEnd + 3);
    path = pathStart < 0 ? "/" : path.slice(pathStart);
  }
  const end = path.search(/[?#]/);
  if (end >= 0) path = path.slice(0, end);
  const segments = path.split("/").filter((part) => part !== "");
  const value = segments.at(segment);
  if (value === undefined) return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}
