// The token verifier reads plain ASCII query strings without URLSearchParams (a hot path on every delivery); this
// checks it reads exactly what URLSearchParams would, over random query strings built from the awkward characters.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { VerificationRequest } from "../src/webhooks/verifiers/types.js";
import { defaultCryptoProvider, tokenVerifier } from "../src/webhooks.js";

const TOKEN = "t0k-EN_9";

function requestFor(url: string): VerificationRequest {
  return {
    method: "POST",
    url,
    header: () => undefined,
    rawBody: new Uint8Array(),
    remoteAddress: undefined,
    crypto: defaultCryptoProvider,
    now: 0,
  };
}

// What the verifier must decide, from the reference parser: exactly one `token` value, equal to the secret.
function expected(query: string): boolean {
  const values = new URLSearchParams(query).getAll("token");
  return values.length === 1 && values[0] === TOKEN;
}

const piece = fc.constantFrom(
  "token",
  "tok",
  "token=",
  "=",
  "&",
  "&&",
  "?",
  TOKEN,
  "x",
  "%74oken",
  "+",
  "é",
  "a=b",
  "",
);

describe("tokenVerifier query parsing", () => {
  it("agrees with URLSearchParams on random query strings", () => {
    const verifier = tokenVerifier({ secrets: TOKEN, in: "query" });
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const query = pieces.join("");
        const result = verifier.verify(requestFor(`/webhooks/qris?${query}`));
        expect("ok" in result && result.ok).toBe(expected(query));
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ["token=t0k-EN_9", true],
    ["a=1&token=t0k-EN_9&b=2", true],
    ["token=t0k-EN_9&token=t0k-EN_9", false],
    ["token=wrong", false],
    ["%74oken=t0k-EN_9", true],
    ["token=t0k%2DEN_9", true],
    ["tokens=t0k-EN_9", false],
  ])("reads %s", (query, ok) => {
    const result = tokenVerifier({ secrets: TOKEN, in: "query" }).verify(requestFor(`/w?${query}`));
    expect("ok" in result && result.ok).toBe(ok);
  });
});
