import { describe, expect, it } from "vitest";
import { pairedRatio, roundOrder, runPairedRounds } from "./paired-rounds.mjs";

describe("roundOrder", () => {
  const groups = [
    ["a", "a-hand"],
    ["b", "b-hand"],
    ["c", "c-hand", "memory"],
  ];

  it("runs every route once per round, each group's routes back to back", () => {
    for (let round = 1; round <= 6; round++) {
      const order = roundOrder(groups, round);
      expect([...order].sort()).toEqual(groups.flat().sort());
      for (const group of groups) {
        const at = order.indexOf(group[0]);
        const span = group.map((route) => order.indexOf(route));
        expect(Math.max(...span) - Math.min(...span)).toBe(group.length - 1);
        expect(at).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it("flips each pair's order from one round to the next", () => {
    for (let round = 1; round <= 6; round++) {
      const order = roundOrder(groups, round);
      const next = roundOrder(groups, round + 1);
      expect(order.indexOf("a") < order.indexOf("a-hand")).not.toBe(next.indexOf("a") < next.indexOf("a-hand"));
    }
  });

  it("rotates which group runs first", () => {
    const firsts = new Set([1, 2, 3].map((round) => roundOrder(groups, round)[0].replace(/-hand|memory/, "")));
    expect(firsts.size).toBe(3);
  });
});

describe("runPairedRounds and pairedRatio", () => {
  it("pairs each route's run with its baseline's of the same round", async () => {
    const rates = { fast: [200, 100, 300], slow: [100, 50, 150] };
    const calls = [];
    const runs = await runPairedRounds([["fast", "slow"]], 3, async (route, round) => {
      calls.push(`${route}@${round}`);
      const rps = round === "warmup" ? 1 : rates[route][round - 1];
      return { rps, p50: 1, p99: 2, non2xx: 0, errors: 0, total: rps };
    });
    expect(calls.slice(0, 2)).toEqual(["fast@warmup", "slow@warmup"]);
    const ratio = pairedRatio(runs, "fast", "slow", 1.5);
    expect(ratio.ratios).toEqual([2, 2, 2]);
    expect(ratio.ratio).toBe(2);
    // Three rounds cannot give a 90 % interval: unsettled however clear the ratios.
    expect(ratio.result).toBe("unsettled");
  });

  it("fails on any non-2xx answer", async () => {
    await expect(
      runPairedRounds([["a", "b"]], 1, async (route) => ({
        rps: 1,
        p50: 1,
        p99: 1,
        non2xx: route === "b" ? 3 : 0,
        errors: 0,
        total: 1,
      })),
    ).rejects.toThrow(/b: 3 non-2xx/);
  });
});
