#!/usr/bin/env node
// The one test command of the repository (README, CONTRIBUTING and .ci/run all call it through `pnpm test`):
// lint, build, typecheck, every vitest project (packages, examples, packaging gates), then one summary line
// `N passed, N failed` that CI reads.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";

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

if (!existsSync(reportPath)) {
  console.error("vitest wrote no JSON report");
  console.log("0 passed, 1 failed");
  process.exit(1);
}
const report = JSON.parse(readFileSync(reportPath, "utf8"));
// A test file that fails to load runs no test, yet it is a failure: count it as one.
const filesFailedWithoutTests = (report.testResults ?? []).filter(
  (file) => file.status === "failed" && !(file.assertionResults ?? []).some((t) => t.status === "failed"),
).length;
const failed = report.numFailedTests + filesFailedWithoutTests;
console.log(`\n${report.numPassedTests} passed, ${failed} failed`);
process.exit(testsPassed && failed === 0 && report.numPassedTests > 0 ? 0 : 1);
