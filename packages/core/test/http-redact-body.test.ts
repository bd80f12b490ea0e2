// BodyRedactor.body (the fast path) must agree with the full walk (Redactor.value) on every valid JSON text, however it escapes secrets or secret-named members.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createBodyRedactor, REDACTED } from "../src/http/redact.js";

const SECRET = 'kb/Se"cr\\et+1';
const redactor = createBodyRedactor([SECRET, "cb-KEY-2"]);

// JSON.stringify, then re-escape some characters as \uXXXX (and "/" as "\/") like other encoders do.
const escapeSome = (text: string, mask: number): string => {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString && ch === "\\") {
      out += ch + text[++i];
      continue;
    }
    if (ch === '"') {
      inString = !inString;
      out += ch;
      continue;
    }
    const pick = (i * 2654435761 + mask) % 3 === 0;
    if (inString && pick)
      out += ch === "/" && mask % 2 ? "\\/" : `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return out;
};

const key = fc.constantFrom("id", "key", "KEY", "token", "api_key", "x-api-key", "note", "Password", 'a"key', "ke y");
const str = fc.oneof(
  fc.string(),
  fc.constantFrom(SECRET, `x ${SECRET} y`, encodeURIComponent(SECRET), "cb-KEY-2", "key", "\\"),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    str,
    fc.integer(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(key, tie("value"), { maxKeys: 4 }),
  ),
})).value;

describe("BodyRedactor.body", () => {
  it("equals the full walk whatever the escaping", () => {
    fc.assert(
      fc.property(json, fc.nat(), fc.boolean(), (value, mask, pretty) => {
        const text = escapeSome(JSON.stringify(value, null, pretty ? 2 : undefined), mask);
        expect(redactor.body(text, JSON.parse(text))).toEqual(redactor.value(JSON.parse(text)));
      }),
      { numRuns: 3000 },
    );
  });

  it("returns the parsed value itself when nothing needs redacting", () => {
    const parsed = { data: [{ id: 1, label: "BANDUNG" }] };
    expect(redactor.body(JSON.stringify(parsed), parsed)).toBe(parsed);
  });

  it("still redacts a secret spelled with \\u escapes and a secret-named member spelled with escapes", () => {
    const text = `{"m":"${[...SECRET].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")}","k\\u0065y":"v"}`;
    expect(redactor.body(text, JSON.parse(text))).toEqual({ m: REDACTED, key: REDACTED });
  });
});
