import type { CryptoProvider, HmacAlgorithm } from "./types.js";

// TS 5.9 types `crypto.subtle` inputs as `BufferSource`, which a `Uint8Array<ArrayBufferLike>` is not.
function toArrayBufferView(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
}

// Importing a key is a large share of a Web Crypto HMAC; verifiers keep their key bytes for their lifetime, so
// the imported key is cached per key array (and algorithm) and dropped with it.
const importedKeys = new WeakMap<Uint8Array, Map<HmacAlgorithm, Promise<CryptoKey>>>();

function importHmacKey(algorithm: HmacAlgorithm, key: Uint8Array): Promise<CryptoKey> {
  let byAlgorithm = importedKeys.get(key);
  if (byAlgorithm === undefined) {
    byAlgorithm = new Map();
    importedKeys.set(key, byAlgorithm);
  }
  let imported = byAlgorithm.get(algorithm);
  if (imported === undefined) {
    imported = crypto.subtle.importKey("raw", toArrayBufferView(key), { name: "HMAC", hash: algorithm }, false, [
      "sign",
    ]);
    byAlgorithm.set(algorithm, imported);
  }
  return imported;
}

/** Web Crypto (`crypto.subtle`) provider: works on Workers, Deno, Bun, browsers and Node. */
export const cryptoProvider: CryptoProvider = {
  name: "web",
  async hmac(algorithm: HmacAlgorithm, key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
    const cryptoKey = await importHmacKey(algorithm, key);
    return new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, toArrayBufferView(data)));
  },
  async sha256(data: Uint8Array): Promise<Uint8Array> {
    return new Uint8Array(await crypto.subtle.digest("SHA-256", toArrayBufferView(data)));
  },
};
