// The receiver's key check takes a fast path on clean bodies (walk the parsed value, count keys in the text) and
// the full scan otherwise. These tests hold the fast path to the full scan's verdict on every kind of body.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findKeyProblem, findKeyProblemIn } from "../src/webhooks/json.js";

const check = (text: string, rejectDuplicates = true) => findKeyProblemIn(JSON.parse(text), text, rejectDuplicates);

// JSON texts that often repeat or spell prototype keys, with whitespace in every legal place.
const keyArbitrary = fc.constantFrom(
  "a",
  "b",
  "a",
  "a",
  "b",
  "__proto__",
  "constructor",
  "x\\u0061",
  "\\u0061",
  'q\\"',
  "\\\\",
);
const ws = fc.constantFrom("", " ", "\n", "\t ", "\r\n");
type JsonTexts = { value: string; object: string; array: string };
const valueArbitrary = fc.letrec<JsonTexts>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("1", "null", "true", '"a"', '"a\\":1,\\"a\\":2"', '"\\\\"', '":"', '" : "'),
    tie("object") as fc.Arbitrary<string>,
    tie("array") as fc.Arbitrary<string>,
  ),
  object: fc
    .array(fc.tuple(ws, keyArbitrary, ws, ws, tie("value") as fc.Arbitrary<string>, ws), { maxLength: 5 })
    .map((members) => `{${members.map(([a, k, b, c, v, d]) => `${a}"${k}"${b}:${c}${v}${d}`).join(",")}}`),
  array: fc.array(tie("value") as fc.Arbitrary<string>, { maxLength: 4 }).map((items) => `[${items.join(",")}]`),
})).value;

describe("findKeyProblemIn (fast path) agrees with findKeyProblem (full scan)", () => {
  it("on generated bodies full of repeated, escaped and prototype keys", () => {
    const verdicts = { clean: 0, duplicate: 0, prototype: 0 };
    fc.assert(
      fc.property(valueArbitrary, fc.boolean(), (text, rejectDuplicates) => {
        const expected = findKeyProblem(text, rejectDuplicates);
        expect(check(text, rejectDuplicates)).toBe(expected);
        verdicts[expected === undefined ? "clean" : expected.startsWith("duplicate") ? "duplicate" : "prototype"]++;
      }),
      { numRuns: 3000 },
    );
    // The generator is only worth something if it reaches every verdict often.
    for (const count of Object.values(verdicts)) expect(count).toBeGreaterThan(100);
  });

  it.each([
    ['{"a" :1,"a":2}', 'duplicate key "a" in a JSON object'], // whitespace before a colon is still a key
    ['{"a":1 , "a" : 2}', 'duplicate key "a" in a JSON object'],
    ['{"s":"\\"a\\":1","a":1}', undefined], // a `":` inside a string value is not a key
    ['{"s":"\\\\","a":1,"b":2}', undefined], // a value ending in a backslash
    ['{"a":{"__proto__":null}}', 'key "__proto__" is not allowed in a webhook body'],
    ['{"\\u0063onstructor":1}', 'key "constructor" is not allowed in a webhook body'],
    ['[{"a":1},{"a":1}]', undefined],
    ["3", undefined],
  ])("%s → %s", (text, problem) => {
    expect(check(text)).toBe(problem);
  });

  it("walks a deeply nested body without overflowing the stack", () => {
    const depth = 50_000;
    const text = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    expect(check(text)).toBeUndefined();
    const withDuplicate = `${'{"a":'.repeat(depth)}{"b":1,"b":2}${"}".repeat(depth)}`;
    expect(check(withDuplicate)).toBe('duplicate key "b" in a JSON object');
  });
});
