import { describe, expect, it } from "vitest";
import { quoteView, rankCostOptions } from "../src/shipping-quote.js";

describe("rankCostOptions", () => {
  it("sorts by price, marks the cheapest and the fastest, and parses every ETD", () => {
    const quote = rankCostOptions([
      { name: "JNE", code: "jne", service: "YES", cost: 38_000, etd: "1 day" },
      { name: "POS", code: "pos", service: "Kilat", cost: 15_000, etd: "3-5 HARI" },
      { name: "SiCepat", code: "sicepat", service: "REG", cost: 17_000, etd: "2-3 day" },
      { name: "JNE", code: "jne", service: "REG", cost: 18_000, etd: "" },
    ]);
    expect(quote.map((o) => `${o.courier_code} ${o.service}`)).toEqual([
      "pos Kilat",
      "sicepat REG",
      "jne REG",
      "jne YES",
    ]);
    expect(quote.filter((o) => o.cheapest).map((o) => o.service)).toEqual(["Kilat"]);
    expect(quote.filter((o) => o.fastest).map((o) => o.service)).toEqual(["YES"]);
    expect(quote[0]?.etd).toEqual({ min: 3, max: 5, unit: "day", raw: "3-5 HARI" });
    expect(quote[2]?.etd).toEqual({ min: null, max: null, unit: null, raw: "" });
  });

  it("compares ETDs across units and gives a tie to the cheaper option", () => {
    const quote = rankCostOptions([
      { name: "A", code: "a", service: "SAME", cost: 50_000, etd: "1 day" },
      { name: "B", code: "b", service: "HOURS", cost: 60_000, etd: "24 jam" },
      { name: "C", code: "c", service: "NEXT", cost: 40_000, etd: "1 day" },
    ]);
    expect(quote.find((o) => o.fastest)?.courier_code).toBe("c");
    expect(quote.find((o) => o.cheapest)?.courier_code).toBe("c");
  });

  it("never marks an option without a usable ETD as fastest, and handles an empty list", () => {
    const quote = rankCostOptions([{ name: "X", code: "x", service: "S", cost: 1_000, etd: "soon" }]);
    expect(quote[0]).toMatchObject({ cheapest: true, fastest: false });
    expect(rankCostOptions([])).toEqual([]);
  });
});

describe("quoteView", () => {
  it("lists every courier's options with where each price came from, never badging a backup rate", () => {
    const fetchedAt = Date.parse("2026-03-02T03:00:00.000Z");
    const view = quoteView({
      rates: [
        {
          courier: "jne",
          source: "cache",
          stale: true,
          fetchedAt,
          options: [
            {
              courier: "jne",
              code: "jne",
              name: "JNE",
              service: "REG",
              description: "Reguler",
              cost: 18_000,
              etd: "2-3 day",
            },
          ],
        },
        {
          courier: "pos",
          source: "backup",
          stale: false,
          fetchedAt: undefined,
          backupReason: "pending",
          options: [
            {
              courier: "pos",
              code: "pos",
              name: undefined,
              service: "BACKUP",
              description: "Backup rate",
              cost: 9_000,
              etd: "1 day",
            },
          ],
        },
      ],
      missing: [{ courier: "tiki", reason: "failed", error: new Error("503") }],
      complete: false,
    });
    expect(view.options.map((o) => [o.courier_code, o.source, o.fetched_at, o.stale, o.cheapest, o.fastest])).toEqual([
      ["pos", "backup", null, false, false, false],
      ["jne", "cache", "2026-03-02T03:00:00.000Z", true, true, true],
    ]);
    expect(view.options[0]?.courier_name).toBe("pos");
    expect(view.missing).toEqual([{ courier_code: "tiki", reason: "failed" }]);
  });
});
