import { describe, expect, it } from "vitest";
import { parseGoalComments } from "./stats.mjs";
import { contextComment, parseContextComments, rowRun, runDateOf, withRunStamp } from "./summary.mjs";

describe("context rows", () => {
  it("round-trip, and are never read as goals", () => {
    const fragment = [
      "## A benchmark",
      contextComment({
        what: "mix of paid and pending",
        measured: "1.39x",
        interval: "1.29–1.44x (96 %)",
        why: "the goal is judged on pending",
      }),
      contextComment({ what: "no interval", measured: "3 KB", why: "size of a part" }),
    ].join("\n");
    expect(parseContextComments(fragment)).toEqual([
      {
        what: "mix of paid and pending",
        measured: "1.39x",
        interval: "1.29–1.44x (96 %)",
        why: "the goal is judged on pending",
      },
      { what: "no interval", measured: "3 KB", interval: "", why: "size of a part" },
    ]);
    expect(parseGoalComments(fragment)).toEqual([]);
  });
});

describe("run dates", () => {
  it("stamps a fragment once and reads the stamp back", () => {
    const stamped = withRunStamp("## A benchmark\n\nfigures\n", "2026-11-25");
    expect(runDateOf(stamped)).toBe("2026-11-25");
    expect(withRunStamp(stamped, "2026-11-27")).toBe(stamped);
    expect(runDateOf("## no stamp")).toBeUndefined();
  });

  it("gives a row that names its own run that date, every other row its fragment's", () => {
    expect(rowRun("hono webhook route vs same checks (req/s; run 2026-11-25)", "2026-11-27")).toEqual({
      what: "hono webhook route vs same checks (req/s)",
      date: "2026-11-25",
    });
    expect(rowRun("entry size (run 2026-11-24)", undefined)).toEqual({ what: "entry size", date: "2026-11-24" });
    expect(rowRun("entry size (min+gzip)", "2026-11-27")).toEqual({
      what: "entry size (min+gzip)",
      date: "2026-11-27",
    });
  });
});
