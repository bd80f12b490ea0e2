import { fromBase64, fromHex, utf8Bytes } from "../../crypto/encoding.js";
import { type HmacAlgorithm, timingSafeEqual } from "../../crypto/types.js";
import { WebhookConfigurationError } from "../errors.js";
import { keepSecretsForRedaction } from "./secret-hook.js";
import { type SecretEncoding, type SecretList, secretBytes } from "./secrets.js";
import { matchesAny } from "./token.js";
import { type RequestVerifier, VERIFIED, type VerificationResult, verificationFailed } from "./types.js";

/** How a signature header writes the digest. */
export type SignatureEncoding = "hex" | "base64";

/** Options of {@link hmacVerifier}. */
export interface HmacVerifierOptions {
  /** The signing secret, or a list during a rotation. */
  secrets: SecretList;
  /** Header carrying the signature, e.g. `"X-Signature"`. */
  header: string;
  /** Default `"SHA-256"`. */
  algorithm?: HmacAlgorithm;
  /** Encoding(s) accepted for the signature; default `"hex"`. Base64 accepts the URL-safe alphabet too. */
  encoding?: SignatureEncoding | readonly SignatureEncoding[];
  /** A prefix before the digest, e.g. `"sha256="`; compared case-insensitively and required when set. */
  prefix?: string;
  /** How the secret strings become key bytes; default `"utf8"`. */
  secretEncoding?: SecretEncoding;
}

const DIGEST_BYTES: Record<HmacAlgorithm, number> = { "SHA-1": 20, "SHA-256": 32, "SHA-384": 48, "SHA-512": 64 };

/**
 * Verifies an HMAC of the exact raw body carried in a header. Configurable for a provider that starts signing
 * later (algorithm, header, hex or base64, prefix); every configured secret is tried, in constant time.
 *
 * @example
 * hmacVerifier({ secrets: [process.env.QRIS_SIGNING_SECRET!], header: "X-Signature", prefix: "sha256=" });
 */
export function hmacVerifier(options: HmacVerifierOptions): RequestVerifier {
  return signatureVerifier("hmacVerifier", options);
}

/** Shared by {@link hmacVerifier} and the callback-key verifier, which differ only in defaults and naming. */
export function signatureVerifier(verifierName: string, options: HmacVerifierOptions): RequestVerifier {
  const algorithm = options.algorithm ?? "SHA-256";
  const digestBytes = DIGEST_BYTES[algorithm];
  if (digestBytes === undefined) {
    throw new WebhookConfigurationError(
      `${verifierName}: algorithm must be one of ${Object.keys(DIGEST_BYTES).join(", ")}`,
    );
  }
  if (typeof options.header !== "string" || options.header.trim() === "") {
    throw new WebhookConfigurationError(`${verifierName}: header must name the signature header`);
  }
  const secretEncoding = options.secretEncoding ?? "utf8";
  const decodeSecret = secretEncoding === "utf8" ? utf8Bytes : secretEncoding === "hex" ? fromHex : fromBase64;
  const keys = secretBytes(verifierName, options.secrets, secretEncoding, decodeSecret);
  const encodings = normaliseEncodings(verifierName, options.encoding ?? "hex");
  const header = options.header;
  const lowerHeader = header.toLowerCase();
  const prefix = options.prefix?.toLowerCase();
  const missing = `header ${header} is missing`;
  const mismatch = `header ${header} does not match the ${algorithm} HMAC of the raw body`;
  const verifier: RequestVerifier = {
    kind: "request",
    name: verifierName,
    verify(request): VerificationResult | Promise<VerificationResult> {
      let value = request.header(lowerHeader);
      value = value?.trim();
      if (value === undefined || value === "") return verificationFailed(missing);
      if (prefix !== undefined) {
        if (value.slice(0, prefix.length).toLowerCase() !== prefix) {
          return verificationFailed(`header ${header} does not start with the expected prefix "${options.prefix}"`);
        }
        value = value.slice(prefix.length);
      }
      const signature = decodeSignature(value, encodings, digestBytes);
      if (signature === undefined) {
        return verificationFailed(
          `header ${header} is not a ${encodings.join(" or ")} ${algorithm} digest of the right length`,
        );
      }
      const provider = request.crypto;
      const hmacSync = provider.hmacSync;
      if (hmacSync !== undefined) {
        const body = request.rawBody;
        // Every key is tried, so the time does not tell which one matched.
        let matched = false;
        for (const key of keys) {
          matched = timingSafeEqual(signature, hmacSync.call(provider, algorithm, key, body)) || matched;
        }
        return matched ? VERIFIED : verificationFailed(mismatch);
      }
      return Promise.all(keys.map((key) => provider.hmac(algorithm, key, request.rawBody))).then((digests) =>
        matchesAny(signature, digests) ? VERIFIED : verificationFailed(mismatch),
      );
    },
  };
  // The secrets as configured (hex or base64 text included): the form they would take in an error or a body.
  return keepSecretsForRedaction(verifier, typeof options.secrets === "string" ? [options.secrets] : options.secrets);
}

function normaliseEncodings(
  verifierName: string,
  encoding: SignatureEncoding | readonly SignatureEncoding[],
): SignatureEncoding[] {
  const list = typeof encoding === "string" ? [encoding] : [...encoding];
  if (list.length === 0 || list.some((item) => item !== "hex" && item !== "base64")) {
    throw new WebhookConfigurationError(`${verifierName}: encoding must be "hex", "base64" or a list of them`);
  }
  return list;
}

// A hex digest has exactly twice the digest length in characters; anything else is tried as base64.
function decodeSignature(
  value: string,
  encodings: readonly SignatureEncoding[],
  digestBytes: number,
): Uint8Array | undefined {
  for (const encoding of encodings) {
    const bytes =
      encoding === "hex" ? (value.length === digestBytes * 2 ? fromHex(value) : undefined) : fromBase64(value);
    if (bytes !== undefined && bytes.length === digestBytes) return bytes;
  }
  return undefined;
}
