// A red CI run must say which tests failed: scripts/test-all.mjs ends with the names that failedTestNames reads from
// vitest's JSON report. Checked against a report written by a real vitest run of a throw-away project.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without types
import { countReport, failedTestNames } from "../../../scripts/vitest-report.mjs";

const root = resolve(import.meta.dirname, "../../..");
const vitest = join(dirname(createRequire(join(root, "package.json")).resolve("vitest/package.json")), "vitest.mjs");
const dir = mkdtempSync(join(tmpdir(), "kb-ci-names-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the failed tests' names at the end of a CI run", () => {
  it("names each failed test by file and full name, and a file that failed to load, from a real vitest report", () => {
    writeFileSync(join(dir, "vitest.config.mjs"), "export default { test: { include: ['*.test.mjs'] } };\n");
    writeFileSync(
      join(dir, "mixed.test.mjs"),
      [
        'import { describe, expect, it } from "vitest";',
        'describe("receiver", () => {',
        '  it("answers 200", () => expect(1).toBe(1));',
        '  it("answers 503 when the store is down", () => expect(1).toBe(2));',
        "});",
      ].join("\n"),
    );
    writeFileSync(join(dir, "broken.test.mjs"), 'throw new Error("cannot start redis-server");\n');
    const report = join(dir, "report.json");
    const run = spawnSync(process.execPath, [vitest, "run", "--reporter=json", `--outputFile.json=${report}`], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, CI: "true" },
    });
    expect(run.status).toBe(1);
    expect(JSON.parse(readFileSync(report, "utf8")).numTotalTests).toBe(2);

    const names: string[] = failedTestNames(report, dir);
    expect(names).toContain("mixed.test.mjs > receiver answers 503 when the store is down");
    expect(
      names.some((name) => name.startsWith("broken.test.mjs (the file failed: ") && name.includes("redis-server")),
    ).toBe(true);
    expect(names.some((name) => name.includes("answers 200"))).toBe(false);
    expect(countReport(report)).toEqual({ passed: 1, failed: 2 });
  });

  it("names nothing for a missing report", () => {
    expect(failedTestNames(join(dir, "none.json"))).toEqual([]);
  });
});
