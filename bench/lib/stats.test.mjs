import { describe, expect, it } from "vitest";
import { formatInterval, goalComment, median, medianInterval, parseGoalComments, verdict } from "./stats.mjs";

// A small seeded generator (mulberry32), so the coverage check below is the same on every run.
function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("median", () => {
  it("takes the middle value, or the mean of the middle two", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow(/no values/);
  });
});

describe("medianInterval", () => {
  it("picks the narrowest order-statistic interval that still covers 90 %", () => {
    const ten = [0.91, 0.97, 0.94, 1.02, 0.96, 0.93, 0.99, 0.95, 0.98, 0.92];
    // Ranks 2 and 9 cover 1 - 2 * 11/1024; ranks 3 and 8 would cover only 0.891.
    expect(medianInterval(ten)).toEqual({ low: 0.92, high: 0.99, coverage: 1 - 22 / 1024 });
    // Five values: only the whole range reaches 90 % (1 - 2/32).
    expect(medianInterval([5, 1, 4, 2, 3])).toEqual({ low: 1, high: 5, coverage: 1 - 2 / 32 });
    const thirty = Array.from({ length: 30 }, (_, i) => i + 1);
    const interval = medianInterval(thirty);
    expect([interval.low, interval.high]).toEqual([11, 20]);
    expect(interval.coverage).toBeGreaterThanOrEqual(0.9);
  });

  it("covers the true median as often as it claims", () => {
    const random = seeded(20261121);
    const trials = 20_000;
    let covered = 0;
    let claimed = 0;
    for (let trial = 0; trial < trials; trial++) {
      // Skewed samples (true median 0.25 for the square of a uniform), 10 per trial like the adapter benchmark.
      const sample = Array.from({ length: 10 }, () => random() ** 2);
      const { low, high, coverage } = medianInterval(sample);
      if (low <= 0.25 && 0.25 <= high) covered++;
      claimed = coverage;
    }
    expect(Math.abs(covered / trials - claimed)).toBeLessThan(0.01);
  });
});

describe("verdict", () => {
  it("settles a goal only when the whole interval is on one side", () => {
    const interval = (low, high) => ({ low, high, coverage: 0.95 });
    expect(verdict(interval(0.96, 1.04), 0.95, "at-least")).toBe("pass");
    expect(verdict(interval(0.88, 0.94), 0.95, "at-least")).toBe("fail");
    expect(verdict(interval(0.91, 0.99), 0.95, "at-least")).toBe("unsettled");
    expect(verdict(interval(1.02, 1.09), 1.1, "at-most")).toBe("pass");
    expect(verdict(interval(1.12, 1.2), 1.1, "at-most")).toBe("fail");
    expect(verdict(interval(1.05, 1.15), 1.1, "at-most")).toBe("unsettled");
  });

  it("settles nothing from too few rounds", () => {
    const single = medianInterval([0.5]);
    expect(single.coverage).toBe(0);
    expect(verdict(single, 0.95, "at-least")).toBe("unsettled");
    expect(verdict(medianInterval([2, 2, 2, 2]), 0.95, "at-least")).toBe("unsettled"); // 4 rounds: 87.5 %
    expect(verdict(medianInterval([2, 2, 2, 2, 2]), 0.95, "at-least")).toBe("pass"); // 5 rounds: 93.75 %
  });
});

describe("goal comments", () => {
  it("round-trip through what bench/run-all.mjs reads, with or without an interval", () => {
    const interval = formatInterval({ low: 0.912, high: 0.987, coverage: 0.979 });
    expect(interval).toBe("0.91–0.99x (98 %)");
    const fragment = [
      "text",
      goalComment({ what: "hono route", measured: "0.95x", target: ">= 0.95x", result: "unsettled", interval }),
      "<!-- goal: size | 15.7 KB | <= 10 KB | fail -->",
    ].join("\n");
    expect(parseGoalComments(fragment)).toEqual([
      { what: "hono route", measured: "0.95x", target: ">= 0.95x", result: "unsettled", interval },
      { what: "size", measured: "15.7 KB", target: "<= 10 KB", result: "fail", interval: "" },
    ]);
  });
});
