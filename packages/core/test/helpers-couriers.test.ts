import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KirimbayarError } from "../src/errors/index.js";
import {
  COURIER_CODES,
  CourierCodeError,
  isCourierIn,
  joinCouriers,
  PRO_WAYBILL_COURIER_CODES,
  STARTER_COURIER_CODES,
  splitCouriers,
} from "../src/helpers/index.js";

// A courier code as a user might type it: letters, digits, "&", "-", "_" and any case (no ":" and no whitespace).
const codeArb = fc.stringMatching(/^[A-Za-z0-9&_-]{1,12}$/);

describe("courier lists", () => {
  it("lists the spec's codes", () => {
    expect(COURIER_CODES).toHaveLength(17);
    expect(COURIER_CODES).toContain("anteraja");
    expect(PRO_WAYBILL_COURIER_CODES).toContain("jet");
    expect(PRO_WAYBILL_COURIER_CODES).toContain("jne"); // the provider's own example tracks a JNE waybill
    expect(STARTER_COURIER_CODES).toEqual(["jne", "pos", "tiki"]);
  });

  it("matches known codes case-insensitively", () => {
    expect(isCourierIn(" JNE ", STARTER_COURIER_CODES)).toBe(true);
    expect(isCourierIn("sicepat", STARTER_COURIER_CODES)).toBe(false);
  });
});

describe("joinCouriers", () => {
  it("joins, trims, lower-cases and dedupes keeping first order", () => {
    expect(joinCouriers(["JNE", " pos", "tiki ", "jne", "Pos"])).toBe("jne:pos:tiki");
    expect(joinCouriers(["sicepat"])).toBe("sicepat");
  });

  it.each([
    [[], 0, "no_codes"],
    [["jne", "  "], 1, "empty"],
    [["jne", "pos:tiki"], 1, "contains_separator"],
    [["j ne"], 0, "contains_whitespace"],
    [["jne", "pos", "ti\tki"], 2, "contains_whitespace"],
  ] as const)("refuses %j with a typed error", (codes, index, reason) => {
    const error = (() => {
      try {
        joinCouriers(codes);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(CourierCodeError);
    expect(error).toBeInstanceOf(KirimbayarError);
    expect(error).toMatchObject({ index, reason, code: "invalid_courier_code" });
  });

  it("round-trips through splitCouriers (property)", () => {
    fc.assert(
      fc.property(fc.array(codeArb, { minLength: 1, maxLength: 10 }), (codes) => {
        const joined = joinCouriers(codes);
        const split = splitCouriers(joined);
        const expected = [...new Set(codes.map((c) => c.toLowerCase()))];
        expect(split).toEqual(expected);
        expect(joinCouriers(split)).toBe(joined);
      }),
    );
  });

  it("never emits an empty segment or whitespace (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 6 }), (codes) => {
        try {
          const joined = joinCouriers(codes);
          expect(joined.split(":").every((s) => s.length > 0 && !/\s/.test(s))).toBe(true);
        } catch (e) {
          expect(e).toBeInstanceOf(CourierCodeError);
        }
      }),
    );
  });
});

describe("splitCouriers", () => {
  it("splits and normalises", () => {
    expect(splitCouriers("jne:POS:tiki:jne")).toEqual(["jne", "pos", "tiki"]);
  });

  it.each([
    ["", "no_codes"],
    ["jne::pos", "empty"],
    ["jne:p os", "contains_whitespace"],
  ])("refuses %j", (joined, reason) => {
    expect(() => splitCouriers(joined)).toThrow(expect.objectContaining({ reason }));
  });
});
