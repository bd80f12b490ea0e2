import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseEtd } from "../src/helpers/index.js";

describe("parseEtd", () => {
  it.each([
    ["2-3 day", 2, 3, "day"],
    ["1 day", 1, 1, "day"],
    ["5 day", 5, 5, "day"],
    ["1-2 HARI", 1, 2, "day"],
    ["2 HARI", 2, 2, "day"],
    ["4", 4, 4, "day"],
    ["4-5", 4, 5, "day"],
    ["1 - 2 days", 1, 2, "day"],
    ["3 jam", 3, 3, "hour"],
    ["1\u20132 hari", 1, 2, "day"],
    ["2\u20143 Days", 2, 3, "day"],
    ["6-8 hours", 6, 8, "hour"],
    ["1-2 minggu", 1, 2, "week"],
    ["5-3 day", 3, 5, "day"],
    [" 2 s.d. 4 hari ", 2, 4, "day"],
  ])("parses %j", (raw, min, max, unit) => {
    expect(parseEtd(raw)).toEqual({ min, max, unit, raw });
  });

  it.each(["", "   ", "next week", "2-3 bulan", "-", "1-", "abc 2"])("gives nulls and keeps raw for %j", (raw) => {
    expect(parseEtd(raw)).toEqual({ min: null, max: null, unit: null, raw });
  });

  it("treats null/undefined as empty and numbers as their text", () => {
    expect(parseEtd(null)).toEqual({ min: null, max: null, unit: null, raw: "" });
    expect(parseEtd(undefined).raw).toBe("");
    expect(parseEtd(3)).toEqual({ min: 3, max: 3, unit: "day", raw: "3" });
  });

  it("never throws, keeps raw, and min <= max (property)", () => {
    const etdLike = fc.oneof(
      fc.string(),
      fc
        .tuple(
          fc.nat(999),
          fc.option(fc.nat(999)),
          fc.constantFrom("", " day", " HARI", " jam", " days", "d", " hours", " minggu", " ?"),
          fc.constantFrom("-", " - ", "\u2013", " to "),
        )
        .map(([a, b, unit, sep]) => `${a}${b === null ? "" : `${sep}${b}`}${unit}`),
    );
    fc.assert(
      fc.property(etdLike, (raw) => {
        const parsed = parseEtd(raw);
        expect(parsed.raw).toBe(raw);
        if (parsed.min === null) {
          expect(parsed.max).toBeNull();
          expect(parsed.unit).toBeNull();
        } else {
          expect(parsed.max).not.toBeNull();
          expect(parsed.min).toBeLessThanOrEqual(parsed.max!);
          expect(parsed.unit).not.toBeNull();
        }
      }),
    );
  });

  it("parses every generated range back to its bounds (property)", () => {
    fc.assert(
      fc.property(fc.nat(500), fc.nat(500), (a, b) => {
        expect(parseEtd(`${a}-${b} HARI`)).toMatchObject({ min: Math.min(a, b), max: Math.max(a, b), unit: "day" });
      }),
    );
  });
});
