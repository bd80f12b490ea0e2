import { describe, expect, it } from "vitest";
import { cryptoProvider as nodeProvider } from "../src/crypto/node.js";
import type { CryptoProvider } from "../src/crypto/types.js";
import { timingSafeEqual } from "../src/crypto/types.js";
import { cryptoProvider as webProvider } from "../src/crypto/web.js";

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const utf8 = (text: string) => new TextEncoder().encode(text);
const fromHex = (text: string) => new Uint8Array(text.match(/../g)!.map((h) => Number.parseInt(h, 16)));

// RFC 4231 test cases 1 and 2, plus FIPS 180-2 SHA-256("abc").
const vectors = [
  {
    key: fromHex("0b".repeat(20)),
    data: utf8("Hi There"),
    sha256: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
    sha512:
      "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854",
  },
  {
    key: utf8("Jefe"),
    data: utf8("what do ya want for nothing?"),
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

  it.each(vectors)("matches RFC 4231 HMAC vectors", async (v) => {
    expect(hex(await provider.hmac("SHA-256", v.key, v.data))).toBe(v.sha256);
    expect(hex(await provider.hmac("SHA-512", v.key, v.data))).toBe(v.sha512);
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
