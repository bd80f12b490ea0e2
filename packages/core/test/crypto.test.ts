import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromHex as decodeHex, fromBase64, toBase64, toHex } from "../src/crypto/encoding.js";
import { cryptoProvider as nodeProvider } from "../src/crypto/node.js";
import type { CryptoProvider } from "../src/crypto/types.js";
import { timingSafeEqual, timingSafeEqualStrings } from "../src/crypto/types.js";
import { cryptoProvider as webProvider } from "../src/crypto/web.js";

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const utf8 = (text: string) => new TextEncoder().encode(text);
const fromHex = (text: string) => new Uint8Array(text.match(/../g)!.map((h) => Number.parseInt(h, 16)));

// RFC 4231 test cases 1 and 2 (SHA-256/384/512), RFC 2202 cases 1 and 2 (SHA-1), FIPS 180-2 SHA-256("abc").
const vectors = [
  {
    key: fromHex("0b".repeat(20)),
    data: utf8("Hi There"),
    sha1: "b617318655057264e28bc0b6fb378c8ef146be00",
    sha384: "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6",
    sha256: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
    sha512:
      "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854",
  },
  {
    key: utf8("Jefe"),
    data: utf8("what do ya want for nothing?"),
    sha1: "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79",
    sha384: "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649",
    sha256: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    sha512:
      "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737",
  },
];

describe.each<[string, CryptoProvider]>([
  ["node", nodeProvider],
  ["web", webProvider],
])("%s crypto provider", (name, provider) => {
  it("names itself", () => expect(provider.name).toBe(name));

  it.each(vectors)("matches RFC 4231 / RFC 2202 HMAC vectors", async (v) => {
    expect(hex(await provider.hmac("SHA-1", v.key, v.data))).toBe(v.sha1);
    expect(hex(await provider.hmac("SHA-256", v.key, v.data))).toBe(v.sha256);
    expect(hex(await provider.hmac("SHA-384", v.key, v.data))).toBe(v.sha384);
    expect(hex(await provider.hmac("SHA-512", v.key, v.data))).toBe(v.sha512);
  });

  it("offers the same digest synchronously where it can", () => {
    const v = vectors[0]!;
    if (provider.hmacSync === undefined) return expect(name).toBe("web");
    expect(hex(provider.hmacSync("SHA-256", v.key, v.data))).toBe(v.sha256);
  });

  it("reuses one key for several algorithms and data views", async () => {
    const v = vectors[1]!;
    const padded = new Uint8Array(v.data.length + 4);
    padded.set(v.data, 2);
    const view = padded.subarray(2, 2 + v.data.length);
    expect(hex(await provider.hmac("SHA-512", v.key, view))).toBe(v.sha512);
    expect(hex(await provider.hmac("SHA-256", v.key, view))).toBe(v.sha256);
  });

  it("hashes SHA-256", async () => {
    expect(hex(await provider.sha256(utf8("abc")))).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });
});

describe("timingSafeEqual", () => {
  it("is true only for equal bytes", () => {
    expect(timingSafeEqual(utf8("secret"), utf8("secret"))).toBe(true);
    expect(timingSafeEqual(utf8("secret"), utf8("secreT"))).toBe(false);
    expect(timingSafeEqual(utf8("secret"), utf8("secret1"))).toBe(false);
    expect(timingSafeEqual(utf8(""), utf8("a"))).toBe(false);
    expect(timingSafeEqual(utf8(""), utf8(""))).toBe(true);
  });
});

describe("both providers agree", () => {
  it("on random keys and messages", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 200 }),
        fc.uint8Array({ maxLength: 500 }),
        fc.constantFrom("SHA-1", "SHA-256", "SHA-384", "SHA-512" as const),
        async (key, data, algorithm) => {
          expect(hex(await webProvider.hmac(algorithm, key, data))).toBe(
            hex(await nodeProvider.hmac(algorithm, key, data)),
          );
          expect(hex(await webProvider.sha256(data))).toBe(hex(await nodeProvider.sha256(data)));
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("encodings", () => {
  it("round-trip hex and base64 and match Node's encoders", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const buffer = Buffer.from(bytes);
        expect(toHex(bytes)).toBe(buffer.toString("hex"));
        expect(toBase64(bytes)).toBe(buffer.toString("base64"));
        expect(Array.from(decodeHex(toHex(bytes).toUpperCase()) ?? [])).toEqual(Array.from(bytes));
        expect(Array.from(fromBase64(toBase64(bytes)) ?? [])).toEqual(Array.from(bytes));
        expect(Array.from(fromBase64(buffer.toString("base64url")) ?? [])).toEqual(Array.from(bytes));
      }),
    );
  });

  it("refuse text that is not hex or base64", () => {
    expect(decodeHex("abc")).toBeUndefined();
    expect(decodeHex("zz")).toBeUndefined();
    expect(fromBase64("a")).toBeUndefined();
    expect(fromBase64("ab$d")).toBeUndefined();
    expect(fromBase64("ab===")).toBeUndefined();
    expect(fromBase64("é")).toBeUndefined();
  });
});

describe("timingSafeEqualStrings", () => {
  it("is true only for equal strings", () => {
    expect(timingSafeEqualStrings("secret", "secret")).toBe(true);
    expect(timingSafeEqualStrings("secret", "secreT")).toBe(false);
    expect(timingSafeEqualStrings("secret", "secret1")).toBe(false);
    expect(timingSafeEqualStrings("", "a")).toBe(false);
    expect(timingSafeEqualStrings("", "")).toBe(true);
    expect(timingSafeEqualStrings("tökén", "tökén")).toBe(true);
    expect(timingSafeEqualStrings("tökén", "token")).toBe(false);
  });
});
