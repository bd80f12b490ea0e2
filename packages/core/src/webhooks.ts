// Entry point of `@kirimbayar/core/webhooks`: webhook verification, parsing and dispatch, and the idempotency
// stores. It must never import the API clients (src/http, src/payment, src/qris, src/shipping, src/orders), so
// edge deployments that only receive webhooks stay small.
export type { CryptoProvider, HmacAlgorithm } from "./crypto/index.js";
export { defaultCryptoProvider, timingSafeEqual, timingSafeEqualStrings } from "./crypto/index.js";
export * from "./idempotency/index.js";
export * from "./webhooks/index.js";
