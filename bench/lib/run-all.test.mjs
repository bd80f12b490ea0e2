// bench/run-all.mjs end to end, in a throw-away copy of bench/ whose one benchmark is a stand-in script: a benchmark
// stopped by its time limit keeps its last figures in its fragment and in RESULTS.md, and a full run's fragment is
// stamped with its duration (which sizes the next run's limit).
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { durationOf } from "./fragments.mjs";

const benchDir = dirname(dirname(fileURLToPath(import.meta.url)));
const OLD_FRAGMENT =
  "## Per-test cost\n\n<!-- goal: fake per test (old run) | 1.23 ms | <= 5 ms | pass |  -->\n\n<!-- run: 2026-11-20 -->\n";
let root;

function benchCopy(script) {
  root = mkdtempSync(join(tmpdir(), "kb-run-all-"));
  const bench = join(root, "bench");
  mkdirSync(join(bench, "fake-lifecycle"), { recursive: true });
  cpSync(join(benchDir, "run-all.mjs"), join(bench, "run-all.mjs"));
  cpSync(join(benchDir, "lib"), join(bench, "lib"), { recursive: true, filter: (path) => !path.endsWith(".test.mjs") });
  mkdirSync(join(bench, "results"));
  writeFileSync(join(bench, "results", "fake-lifecycle.md"), OLD_FRAGMENT);
  writeFileSync(join(bench, "fake-lifecycle", "run.mjs"), script);
  return bench;
}

function runAll(bench, limitMs) {
  return spawnSync(process.execPath, [join(bench, "run-all.mjs"), "--only", "fake-lifecycle", "--no-build"], {
    cwd: root,
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, KIRIMBAYAR_BENCH_LIMIT_MS: String(limitMs) },
  });
}

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("bench/run-all.mjs", () => {
  it("keeps a stopped benchmark's last figures, even when it wrote half a fragment before its limit", () => {
    const bench = benchCopy(
      [
        'import { writeFileSync } from "node:fs";',
        'writeFileSync(new URL("../results/fake-lifecycle.md", import.meta.url), "## half\\n<!-- goal: fake per test (half) | 9 ms | <= 5 ms | fail |  -->\\n");',
        "setTimeout(() => {}, 20_000);",
      ].join("\n"),
    );
    const run = runAll(bench, 1_500);
    expect(run.status).toBe(1);
    expect(readFileSync(join(bench, "results", "fake-lifecycle.md"), "utf8")).toBe(OLD_FRAGMENT);
    const results = readFileSync(join(bench, "RESULTS.md"), "utf8");
    expect(results).toContain("| fake per test (old run) | 1.23 ms |");
    expect(results).not.toContain("(half)");
    expect(results).toMatch(/\| fake-lifecycle \| timeout \(stopped after 2 s\)/);
  });

  it("stamps a full run's fragment with its date and duration", () => {
    const bench = benchCopy(
      [
        'import { writeFileSync } from "node:fs";',
        'writeFileSync(new URL("../results/fake-lifecycle.md", import.meta.url), "## new\\n<!-- goal: fake per test (new run) | 1.10 ms | <= 5 ms | pass |  -->\\n");',
      ].join("\n"),
    );
    const run = runAll(bench, 20_000);
    expect(run.status, run.stderr).toBe(0);
    const fragment = readFileSync(join(bench, "results", "fake-lifecycle.md"), "utf8");
    expect(fragment).toContain("(new run)");
    expect(fragment).toMatch(/<!-- run: \d{4}-\d{2}-\d{2} -->/);
    expect(durationOf(fragment)).toBeLessThan(20_000);
    expect(readFileSync(join(bench, "RESULTS.md"), "utf8")).toContain("| fake per test (new run) | 1.10 ms |");
  });
});
