/** Hash algorithms the webhook verifiers can use for HMAC signatures. */
export type HmacAlgorithm = "SHA-1" | "SHA-256" | "SHA-384" | "SHA-512";

/**
 * The small set of cryptographic primitives kirimbayar needs. Two implementations ship: `node:crypto` (picked on
 * Node through the `#crypto` conditional import, about 20x faster per HMAC) and Web Crypto (everywhere else).
 * Pass your own through the `crypto` option of any API that verifies signatures.
 *
 * @example
 * const receiver = createWebhookReceiver({ source: "payment", crypto: myProvider, verify: [...] });
 */
export interface CryptoProvider {
  /** `"node"` or `"web"`, for diagnostics. */
  readonly name: string;
  /** HMAC of `data` keyed with `key`. */
  hmac(algorithm: HmacAlgorithm, key: Uint8Array, data: Uint8Array): Promise<Uint8Array>;
  /**
   * Optional synchronous HMAC, used instead of {@link CryptoProvider.hmac} when present to save a promise per
   * verification. Only runtimes with a synchronous primitive (Node) provide it.
   */
  hmacSync?(algorithm: HmacAlgorithm, key: Uint8Array, data: Uint8Array): Uint8Array;
  /** SHA-256 digest of `data`. */
  sha256(data: Uint8Array): Promise<Uint8Array>;
}

/**
 * Compares two byte arrays in time that depends only on their lengths, never on where they first differ.
 *
 * @example
 * timingSafeEqual(new TextEncoder().encode("a"), new TextEncoder().encode("a")); // true
 */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) {
    diff |= (a[i % (a.length || 1)] ?? 0) ^ (b[i % (b.length || 1)] ?? 0);
  }
  return diff === 0;
}

/**
 * {@link timingSafeEqual} for strings, over UTF-16 code units: no encoding, so no allocation per comparison (tokens
 * from URLs and headers are compared on every delivery).
 *
 * @example
 * timingSafeEqualStrings("s3cret", "s3cret"); // true
 */
export function timingSafeEqualStrings(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) {
    diff |= (a.charCodeAt(i % (a.length || 1)) | 0) ^ (b.charCodeAt(i % (b.length || 1)) | 0);
  }
  return diff === 0;
}
