// Counts and failures of a vitest JSON report (`--reporter=json --outputFile.json=<file>`), shared by
// scripts/test-all.mjs and scripts/test-other-nodes.mjs so every run is counted by the same rule.
import { existsSync, readFileSync } from "node:fs";
import { relative } from "node:path";

function readReport(path) {
  return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : undefined;
}

// A test file that fails to load (a syntax error, a throw at import, a failing hook) runs no test, yet it failed.
const failedWithoutTests = (file) =>
  file.status === "failed" && !(file.assertionResults ?? []).some((test) => test.status === "failed");

/**
 * `{ passed, failed }` of the vitest JSON report at `path`, or `undefined` when vitest wrote none. A test file that
 * fails to load runs no test, yet it is a failure: it counts as one.
 */
export function countReport(path) {
  const report = readReport(path);
  if (report === undefined) return undefined;
  const filesFailedWithoutTests = (report.testResults ?? []).filter(failedWithoutTests).length;
  return { passed: report.numPassedTests, failed: report.numFailedTests + filesFailedWithoutTests };
}

/**
 * One line per failure in the report at `path`: `<file relative to root> > <full test name>` for a failed test, and
 * `<file> (the file failed: <first line of its message>)` for a file that failed without a failed test. Empty when
 * the report is missing or green.
 */
export function failedTestNames(path, root = process.cwd()) {
  const report = readReport(path);
  if (report === undefined) return [];
  const lines = [];
  for (const file of report.testResults ?? []) {
    const name = relative(root, file.name ?? "");
    for (const test of file.assertionResults ?? []) {
      if (test.status === "failed") lines.push(`${name} > ${test.fullName ?? test.title}`);
    }
    if (failedWithoutTests(file)) {
      const reason = String(file.message ?? "").split("\n")[0] || "no test ran";
      lines.push(`${name} (the file failed: ${reason})`);
    }
  }
  return lines;
}
