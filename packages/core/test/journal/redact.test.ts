// What journals keep of bodies and errors never holds a secret, and stays readable.
import { describe, expect, it } from "vitest";
import {
  MAX_ERROR_SUMMARY,
  MIN_SECRET_FRAGMENT,
  redactBody,
  redactText,
  secretRedactor,
  summarizeError,
} from "../../src/journal.js";

/** A webhook token of the length (22 characters), with no pattern that redactText would recognise. */
const TOKEN = "q7Hx2vK9pLmN4sR8wZ1yBc";

describe("journal redaction", () => {
  it("masks credential fields of a JSON body at any depth, and tokens in its URLs, keeping the rest", () => {
    const body = JSON.stringify({
      order_no: "SO-1",
      amount: 10_000,
      callback_key: "ck-live-123",
      nested: { api_key: "k", password: "hunter2", Authorization: "Bearer abc.def.ghi", items: [{ token: "t" }] },
      redirect: "https://shop.example/back?token=secret-token&page=2",
      empty: "",
    });
    expect(JSON.parse(redactBody(body))).toEqual({
      order_no: "SO-1",
      amount: 10_000,
      callback_key: "[redacted]",
      nested: {
        api_key: "[redacted]",
        password: "[redacted]",
        Authorization: "[redacted]",
        items: [{ token: "[redacted]" }],
      },
      redirect: "https://shop.example/back?token=[redacted]&page=2",
      empty: "",
    });
  });

  it("masks secrets in text that is not JSON", () => {
    const text =
      "POST /hook?token=abc123&x=1 Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig password=p4ss";
    const redacted = redactText(text);
    for (const secret of ["abc123", "eyJhbGciOiJIUzI1NiJ9", "p4ss"]) expect(redacted).not.toContain(secret);
    expect(redacted).toContain("/hook?token=[redacted]&x=1");
    expect(redactBody("not json, api_key=XYZ")).toBe("not json, api_key=[redacted]");
  });

  it("keeps ids, keys and amounts readable", () => {
    const text = "qris:payment.success:8f14e45f-ceea-467f-a2b9-6b1a7c1e2d3f order ORD-2026-0001 amount 100001";
    expect(redactText(text)).toBe(text);
  });

  it("summarizes an error on one line, without its stack, with its cause, secrets masked, at most 500 characters", () => {
    const cause = new Error("connect ECONNREFUSED postgres://app:hunter2@db:5432/shop");
    const error = new Error("claim failed\n    at Store.claim (/app/store.ts:1:1)", { cause });
    const summary = summarizeError(error);
    expect(summary).toBe("Error: claim failed; cause: Error: connect ECONNREFUSED postgres://[redacted]@db:5432/shop");
    expect(summarizeError(new Error("a long message ".repeat(100)))).toHaveLength(MAX_ERROR_SUMMARY);
    expect(summarizeError("token=abc")).toBe("token=[redacted]");
    expect(summarizeError({ toString: () => "odd" })).toBe("odd");
    expect(summarizeError(Object.create(null))).toBe("unknown error");
  });

  it("masks a known secret wherever it is, also URL-encoded and JSON-escaped", () => {
    const secret = 's3cr3t/with+odd=chars"q';
    const mask = secretRedactor([secret]);
    const encoded = encodeURIComponent(secret);
    const escaped = JSON.stringify(secret).slice(1, -1);
    expect(mask(`a ${secret} b ${encoded} c ${escaped} d`)).toBe("a [redacted] b [redacted] c [redacted] d");
    expect(secretRedactor([])("nothing to do")).toBe("nothing to do");
  });

  it("masks a secret cut off at the end of a text (before an ellipsis) or at its start, from 4 characters on", () => {
    const mask = secretRedactor([TOKEN]);
    // The case: the token starting at character 484 of an error cut at 500, 15 of its 22 characters left.
    expect(mask(`${"x".repeat(484)}${TOKEN.slice(0, 15)}…`)).toBe(`${"x".repeat(484)}[redacted]…`);
    expect(mask(`failed for ${TOKEN.slice(0, 10)}`)).toBe("failed for [redacted]");
    expect(mask(`failed for ${TOKEN.slice(0, 10)}...`)).toBe("failed for [redacted]...");
    expect(mask(`${TOKEN.slice(-9)} was refused`)).toBe("[redacted] was refused");
    expect(mask(`…${TOKEN.slice(-MIN_SECRET_FRAGMENT)} was refused`)).toBe("…[redacted] was refused");
    for (let length = MIN_SECRET_FRAGMENT; length < TOKEN.length; length++) {
      expect(mask(`cut ${TOKEN.slice(0, length)}`)).toBe("cut [redacted]");
      expect(mask(`${TOKEN.slice(0, length)}…`)).toBe("[redacted]…");
      expect(mask(`${TOKEN.slice(-length)} cut`)).toBe("[redacted] cut");
      expect(mask(`...${TOKEN.slice(-length)}`)).toBe("...[redacted]");
    }
    // Two secrets, one cut at each end.
    const both = secretRedactor([TOKEN, "Zz9Yy8Xx7Ww6Vv5"]);
    expect(both(`${TOKEN.slice(-6)} and ${"Zz9Yy8Xx7Ww6Vv5".slice(0, 7)}`)).toBe("[redacted] and [redacted]");
    // Shorter pieces, and pieces inside the text, are not secrets: they would mask ordinary words.
    expect(mask(`ends with ${TOKEN.slice(0, MIN_SECRET_FRAGMENT - 1)}`)).toBe(
      `ends with ${TOKEN.slice(0, MIN_SECRET_FRAGMENT - 1)}`,
    );
    expect(mask(`${TOKEN.slice(0, 8)} in the middle`)).toBe(`${TOKEN.slice(0, 8)} in the middle`);
  });

  it("summarizes an error with its secrets masked before it is cut: no piece of a secret at the cut", () => {
    const mask = secretRedactor([TOKEN]);
    for (let at = 470; at <= 500; at++) {
      const summary = summarizeError(new Error(`${"x".repeat(at - 7)} ${TOKEN} and more text after it`), mask);
      expect(summary.length).toBeLessThanOrEqual(MAX_ERROR_SUMMARY);
      for (let length = MIN_SECRET_FRAGMENT; length <= TOKEN.length; length++) {
        expect(summary, `token at ${at}`).not.toContain(TOKEN.slice(0, length));
      }
    }
    // A secret far past the searched part of a huge message is cut away, never left in pieces.
    const huge = summarizeError(new Error(`${"y ".repeat(20_000)}${TOKEN}`), mask);
    expect(huge).not.toContain(TOKEN.slice(0, MIN_SECRET_FRAGMENT));
  });

  it("masks known secrets in a body: in values, names and text that is not JSON", () => {
    const mask = secretRedactor([TOKEN]);
    const body = JSON.stringify({ note: `paid with ${TOKEN}`, [TOKEN]: 1, url: `/hook/${TOKEN}` });
    const redacted = redactBody(body, mask);
    expect(redacted).not.toContain(TOKEN);
    expect(JSON.parse(redacted)).toEqual({ note: "paid with [redacted]", "[redacted]": 1, url: "/hook/[redacted]" });
    expect(redactBody(`raw ${TOKEN}`, mask)).toBe("raw [redacted]");
  });
});
