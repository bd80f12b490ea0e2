import { describe, expect, it } from "vitest";
import { durationOf, settledFragment, timeLimitOf, withDurationStamp } from "./fragments.mjs";

const OLD = "## old\n<!-- goal: a | 1.00x | >= 0.90x | pass |  -->\n\n<!-- run: 2026-12-01 -->\n";
const NEW = "## new\n<!-- goal: a | 1.10x | >= 0.90x | pass |  -->\n";

describe("settledFragment", () => {
  it("keeps the previous figures when the run was stopped by its limit, even if it wrote half a fragment", () => {
    expect(settledFragment({ previous: OLD, written: NEW, outcome: { status: "timeout" } })).toBe(OLD);
    expect(settledFragment({ previous: OLD, written: undefined, outcome: { status: "timeout" } })).toBe(OLD);
  });

  it("keeps the previous figures when the run failed without writing", () => {
    expect(settledFragment({ previous: OLD, written: undefined, outcome: { status: "failed" } })).toBe(OLD);
  });

  it("takes this run's fragment when it ended and wrote one, merged when the benchmark merges", () => {
    expect(settledFragment({ previous: OLD, written: NEW, outcome: { status: "ok" } })).toBe(NEW);
    const merge = (previous, written) => `${written}|${previous.length}`;
    expect(settledFragment({ previous: OLD, written: NEW, outcome: { status: "ok" }, merge })).toBe(
      `${NEW}|${OLD.length}`,
    );
    expect(settledFragment({ previous: undefined, written: NEW, outcome: { status: "ok" }, merge })).toBe(NEW);
  });

  it("writes nothing for a first run that produced nothing", () => {
    expect(settledFragment({ previous: undefined, written: undefined, outcome: { status: "timeout" } })).toBe(
      undefined,
    );
  });
});

describe("time limits from the benchmark's own runs", () => {
  it("stamps a run's duration once and reads it back", () => {
    const stamped = withDurationStamp(withDurationStamp(NEW, 600_000), 684_400);
    expect(stamped.match(/duration:/g)).toHaveLength(1);
    expect(durationOf(stamped)).toBe(684_000);
    expect(durationOf(NEW)).toBeUndefined();
  });

  it("gives a benchmark that grew past its declared limit its last duration with a margin", () => {
    const benchmark = { timeoutMs: 600_000 };
    expect(timeLimitOf(benchmark, withDurationStamp(NEW, 684_000), false)).toBe(1_026_000);
    expect(timeLimitOf(benchmark, withDurationStamp(NEW, 100_000), false)).toBe(600_000);
    expect(timeLimitOf(benchmark, undefined, false)).toBe(600_000);
    expect(timeLimitOf(benchmark, withDurationStamp(NEW, 684_000), true)).toBe(600_000);
  });
});
