import { utf8Bytes } from "../../crypto/encoding.js";
import { WebhookConfigurationError } from "../errors.js";
import { type SignatureEncoding, signatureVerifier } from "./hmac.js";
import { keepSecretsForRedaction } from "./secret-hook.js";
import { type SecretList, secretBytes } from "./secrets.js";
import { matchesAny } from "./token.js";
import { type RequestVerifier, VERIFIED, type VerificationResult, verificationFailed } from "./types.js";

/** Options of {@link callbackKeyVerifier}. */
export interface CallbackKeyVerifierOptions {
  /** The `callback_api_key`(s) you sent when creating payments; a list lets you rotate. */
  secrets: SecretList;
  /**
   * `"hmac"` (default): the header carries an HMAC-SHA256 of the exact raw body keyed with the callback key.
   * `"plain"`: the header carries the callback key itself (some integrations do this).
   */
  mode?: "hmac" | "plain";
  /** Default `"X-Callback-Api-Key"`. */
  header?: string;
  /** For `"hmac"`: accepted digest encodings; default both `["hex", "base64"]`. */
  encoding?: SignatureEncoding | readonly SignatureEncoding[];
}

/**
 * Verifies the payment gateway's callback: by default an HMAC-SHA256 of the raw body, keyed with your
 * `callback_api_key`, in header `X-Callback-Api-Key` (hex or base64); `mode: "plain"` compares the header to the
 * key itself. Constant time, every listed key tried.
 *
 * @example
 * const payment = createWebhookReceiver({
 *   source: "payment",
 *   verify: [callbackKeyVerifier({ secrets: [process.env.CALLBACK_API_KEY!] })],
 * });
 */
export function callbackKeyVerifier(options: CallbackKeyVerifierOptions): RequestVerifier {
  const mode = options.mode ?? "hmac";
  const header = options.header ?? "X-Callback-Api-Key";
  if (mode === "hmac") {
    return signatureVerifier("callbackKeyVerifier", {
      secrets: options.secrets,
      header,
      algorithm: "SHA-256",
      encoding: options.encoding ?? ["hex", "base64"],
    });
  }
  if (mode !== "plain") throw new WebhookConfigurationError(`callbackKeyVerifier: mode must be "hmac" or "plain"`);
  const keys = secretBytes("callbackKeyVerifier", options.secrets);
  const lowerHeader = header.toLowerCase();
  const verifier: RequestVerifier = {
    kind: "request",
    name: "callbackKeyVerifier",
    verify(request): VerificationResult {
      const value = request.header(lowerHeader)?.trim();
      if (value === undefined || value === "") return verificationFailed(`header ${header} is missing`);
      return matchesAny(utf8Bytes(value), keys)
        ? VERIFIED
        : verificationFailed(`header ${header} does not match the callback key`);
    },
  };
  return keepSecretsForRedaction(verifier, typeof options.secrets === "string" ? [options.secrets] : options.secrets);
}
