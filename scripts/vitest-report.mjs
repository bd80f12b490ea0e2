// Counts of a vitest JSON report (`--reporter=json --outputFile.json=<file>`), shared by scripts/test-all.mjs and
// scripts/test-other-nodes.mjs so every run is counted by the same rule.
import { existsSync, readFileSync } from "node:fs";

/**
 * `{ passed, failed }` of the vitest JSON report at `path`, or `undefined` when vitest wrote none. A test file that
 * fails to load runs no test, yet it is a failure: it counts as one.
 */
export function countReport(path) {
  if (!existsSync(path)) return undefined;
  const report = JSON.parse(readFileSync(path, "utf8"));
  const filesFailedWithoutTests = (report.testResults ?? []).filter(
    (file) => file.status === "failed" && !(file.assertionResults ?? []).some((t) => t.status === "failed"),
  ).length;
  return { passed: report.numPassedTests, failed: report.numFailedTests + filesFailedWithoutTests };
}
