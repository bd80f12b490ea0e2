// Byte <-> text encodings the verifiers need, written without `Buffer` so they run on every runtime.

const HEX_DIGITS = "0123456789abcdef";
const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Maps a char code to its 6-bit value; both the standard and the URL-safe alphabet decode. -1 = not base64.
// The tables are marked pure so that a bundle without the decoders (a token-verified endpoint) drops them.
const BASE64_VALUES = /* @__PURE__ */ (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < BASE64_ALPHABET.length; i++) table[BASE64_ALPHABET.charCodeAt(i)] = i;
  table["-".charCodeAt(0)] = 62;
  table["_".charCodeAt(0)] = 63;
  return table;
})();

const utf8Encoder = new TextEncoder();

/**
 * UTF-8 bytes of a string.
 *
 * @example
 * utf8Bytes("Rp"); // Uint8Array [82, 112]
 */
export function utf8Bytes(text: string): Uint8Array {
  return utf8Encoder.encode(text);
}

/**
 * Lower-case hexadecimal text of bytes.
 *
 * @example
 * toHex(new Uint8Array([1, 255])); // "01ff"
 */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    out += HEX_DIGITS[byte >> 4]! + HEX_DIGITS[byte & 15]!;
  }
  return out;
}

// Maps a char code to its hex digit value; -1 = not a hex digit.
const HEX_VALUES = /* @__PURE__ */ (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < 16; i++) {
    table[HEX_DIGITS.charCodeAt(i)] = i;
    table[HEX_DIGITS.toUpperCase().charCodeAt(i)] = i;
  }
  return table;
})();

function hexValue(code: number): number {
  return code < 128 ? (HEX_VALUES[code] as number) : -1;
}

/**
 * Bytes of a hexadecimal string (either case), or `undefined` when it is not valid hex.
 *
 * @example
 * fromHex("01FF"); // Uint8Array [1, 255]
 */
export function fromHex(text: string): Uint8Array | undefined {
  if (text.length % 2 !== 0) return undefined;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) {
    const high = hexValue(text.charCodeAt(2 * i));
    const low = hexValue(text.charCodeAt(2 * i + 1));
    if (high < 0 || low < 0) return undefined;
    out[i] = (high << 4) | low;
  }
  return out;
}

/**
 * Standard base64 (with padding) of bytes.
 *
 * @example
 * toBase64(new TextEncoder().encode("hi")); // "aGk="
 */
export function toBase64(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out += BASE64_ALPHABET[n >> 18]! + BASE64_ALPHABET[(n >> 12) & 63]! + BASE64_ALPHABET[(n >> 6) & 63]!;
    out += BASE64_ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    out += `${BASE64_ALPHABET[n >> 18]!}${BASE64_ALPHABET[(n >> 12) & 63]!}==`;
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    out += `${BASE64_ALPHABET[n >> 18]!}${BASE64_ALPHABET[(n >> 12) & 63]!}${BASE64_ALPHABET[(n >> 6) & 63]!}=`;
  }
  return out;
}

/**
 * Bytes of base64 text, standard or URL-safe alphabet, padding optional; `undefined` when it is not base64.
 *
 * @example
 * fromBase64("aGk="); // Uint8Array [104, 105]
 */
export function fromBase64(text: string): Uint8Array | undefined {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 61 /* = */) end--;
  if (text.length - end > 2 || end % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  let buffer = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i);
    const value = code < 128 ? (BASE64_VALUES[code] as number) : -1;
    if (value < 0) return undefined;
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 0xff;
    }
  }
  return out;
}
