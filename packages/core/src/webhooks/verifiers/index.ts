export { type CallbackKeyVerifierOptions, callbackKeyVerifier } from "./callback-key.js";
export { type HmacVerifierOptions, hmacVerifier, type SignatureEncoding } from "./hmac.js";
export type { SecretEncoding, SecretList } from "./secrets.js";
export { type TimestampWindowOptions, timestampWindow } from "./timestamp-window.js";
export { type TokenVerifierOptions, tokenVerifier } from "./token.js";
export {
  type EventVerifier,
  type RequestVerifier,
  VERIFIED,
  type VerificationRequest,
  type VerificationResult,
  verificationFailed,
  type WebhookSource,
  type WebhookVerifier,
} from "./types.js";
