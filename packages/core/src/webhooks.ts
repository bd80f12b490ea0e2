// Entry point of `@kirimbayar/core/webhooks`: webhook verification, parsing and dispatch only, never the API clients.
export type { CryptoProvider, HmacAlgorithm } from "./crypto/index.js";
export { defaultCryptoProvider, timingSafeEqual } from "./crypto/index.js";
export * from "./webhooks/index.js";
