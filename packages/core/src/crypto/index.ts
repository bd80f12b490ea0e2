import { cryptoProvider } from "#crypto";
import type { CryptoProvider } from "./types.js";

export { fromBase64, fromHex, toBase64, toHex, utf8Bytes } from "./encoding.js";
export type { CryptoProvider, HmacAlgorithm } from "./types.js";
export { timingSafeEqual, timingSafeEqualStrings } from "./types.js";

/** The provider this runtime resolved: `node:crypto` on Node, Web Crypto everywhere else. */
export const defaultCryptoProvider: CryptoProvider = cryptoProvider;
