// What journals keep of bodies and errors never holds a secret, and stays readable.
import { describe, expect, it } from "vitest";
import { MAX_ERROR_SUMMARY, redactBody, redactText, summarizeError } from "../../src/journal.js";

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
});
