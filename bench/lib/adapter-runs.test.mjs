import { describe, expect, it } from "vitest";
import { mergeAdapterFragments, mergeAdapterRuns, parseAdapterFragment, renderAdapterRuns } from "./adapter-runs.mjs";
import { parseGoalComments } from "./stats.mjs";

const TITLE = "## Adapters: webhook route vs the same framework's bare JSON route and a hand-rolled equivalent";
const HEADER = ["Route", "req/s", "CPU µs/req"];

// A fragment as bench/adapters/run.mjs wrote it before rows carried their date: one run, dated in the intro.
const legacy = `${TITLE}

Written by \`node bench/adapters/run.mjs\` on 2026-11-25: Node v20.20.2, 2 cores, autocannon on 127.0.0.1, 50 connections, 8 interleaved rounds × 1.5 s per route after 4 s of unrecorded warm-up on every route, servers in child processes. Medians over rounds. The route order flips every round.

| Framework | Route | req/s | CPU µs/req |
|---|---|---:|---:|
| express | webhook | 7221 | 217.8 |
| hono | webhook | 20255 | 66.9 |
| fastify | webhook | 16652 | 83.3 |

- express: webhook/same-checks = 1.39× (goal ≥ 0.95×: met)
- hono: webhook/same-checks = 1.13× (goal ≥ 0.9×: met)
- fastify: webhook/same-checks = 1.00× (goal ≥ 0.9×: unsettled)

<!-- goal: express webhook route vs hand-rolled route doing the same checks (req/s) | 1.39x | >= 0.95x | pass | 1.09–1.56x (93 %) -->
<!-- goal: hono webhook route vs hand-rolled route doing the same checks (req/s) | 1.13x | >= 0.9x | pass | 1.07–1.33x (93 %) -->
<!-- goal: fastify webhook route vs hand-rolled route doing the same checks (req/s) | 1.00x | >= 0.9x | unsettled | 0.86–1.07x (93 %) -->
`;

const text = { title: TITLE, method: "Medians over rounds.", header: HEADER };

function fastifyRun(date) {
  return new Map([
    [
      "fastify",
      {
        framework: "fastify",
        date,
        settings: "Node v20.20.2, 2 cores, 8 rounds",
        rows: [["webhook", "17856", "74.0"]],
        verdict: "webhook/same-checks = 0.93× (goal ≥ 0.9×: unsettled)",
        goal: {
          what: "fastify webhook route vs hand-rolled route doing the same checks (req/s)",
          measured: "0.93x",
          target: ">= 0.9x",
          result: "unsettled",
          interval: "0.88–0.96x (93 %)",
        },
      },
    ],
  ]);
}

describe("adapter runs", () => {
  it("reads a one-run fragment written before rows carried their date, every framework dated by its intro", () => {
    const { title, method, header, runs } = parseAdapterFragment(legacy);
    expect(title).toBe(TITLE);
    expect(method).toBe("Medians over rounds. The route order flips every round.");
    expect(header).toEqual(HEADER);
    expect([...runs.keys()]).toEqual(["express", "hono", "fastify"]);
    expect(runs.get("hono")).toMatchObject({
      date: "2026-11-25",
      settings: expect.stringMatching(/^Node v20\.20\.2, 2 cores, .* servers in child processes$/),
      rows: [["webhook", "20255", "66.9"]],
      verdict: "webhook/same-checks = 1.13× (goal ≥ 0.9×: met)",
      goal: { measured: "1.13x", result: "pass" },
    });
  });

  it("keeps the frameworks a partial run did not measure, each with the date of its own run", () => {
    const merged = renderAdapterRuns(
      mergeAdapterRuns(parseAdapterFragment(legacy).runs, fastifyRun("2026-11-27")),
      text,
    );
    expect(merged).toContain("| express | 2026-11-25 | webhook | 7221 | 217.8 |");
    expect(merged).toContain("| hono | 2026-11-25 | webhook | 20255 | 66.9 |");
    expect(merged).toContain("| fastify | 2026-11-27 | webhook | 17856 | 74.0 |");
    expect(merged).not.toContain("16652");
    expect(merged).toContain("- hono (run 2026-11-25): webhook/same-checks = 1.13×");
    expect(merged).toContain("- fastify (run 2026-11-27): webhook/same-checks = 0.93×");
    expect(parseGoalComments(merged).map((goal) => [goal.what, goal.measured])).toEqual([
      ["express webhook route vs hand-rolled route doing the same checks (req/s; run 2026-11-25)", "1.39x"],
      ["hono webhook route vs hand-rolled route doing the same checks (req/s; run 2026-11-25)", "1.13x"],
      ["fastify webhook route vs hand-rolled route doing the same checks (req/s; run 2026-11-27)", "0.93x"],
    ]);
  });

  it("reads its own format back unchanged, so later partial runs merge again", () => {
    const once = renderAdapterRuns(mergeAdapterRuns(parseAdapterFragment(legacy).runs, fastifyRun("2026-11-27")), text);
    const parsed = parseAdapterFragment(once);
    expect(parsed.method).toBe("Medians over rounds.");
    expect(parsed.runs.get("express")?.date).toBe("2026-11-25");
    expect(parsed.runs.get("fastify")?.settings).toBe("Node v20.20.2, 2 cores, 8 rounds");
    expect(renderAdapterRuns(parsed.runs, parsed)).toBe(once);
    // A later Fastify-only run replaces Fastify's rows and leaves the others' dates alone.
    const twice = mergeAdapterFragments(once, renderAdapterRuns(fastifyRun("2026-11-28"), text));
    expect(twice).toContain("| express | 2026-11-25 | webhook | 7221 | 217.8 |");
    expect(twice).toContain("| fastify | 2026-11-28 | webhook | 17856 | 74.0 |");
    expect(twice).not.toContain("| fastify | 2026-11-27 |");
    expect(parseGoalComments(twice)).toHaveLength(3);
  });

  it("puts the frameworks in report order whatever order the runs came in", () => {
    const runs = mergeAdapterRuns(fastifyRun("2026-11-27"), parseAdapterFragment(legacy).runs);
    expect([...runs.keys()]).toEqual(["express", "hono", "fastify"]);
    // The newer map wins for the frameworks both have.
    expect(runs.get("fastify")?.date).toBe("2026-11-25");
  });

  it("refuses rows whose run date it cannot tell", () => {
    const undated = `${TITLE}\n\nSome method.\n\n| Framework | Route | req/s | CPU µs/req |\n|---|---|---:|---:|\n| hono | webhook | 1 | 2 |\n`;
    expect(() => parseAdapterFragment(undated)).toThrow(/no run date for hono/);
  });
});
