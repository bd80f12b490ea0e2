#!/usr/bin/env node
// The one benchmark command (`pnpm bench`): builds what the benchmarks import, runs every benchmark one after the
// other (never in parallel: they share the machine's cores), then composes bench/RESULTS.md from the markdown
// fragments the benchmarks write to bench/results/<name>.md.
//
// Each benchmark is a `bench/<name>/run.mjs` that writes `bench/results/<name>.md`. A fragment may declare goal rows
// for the summary table as HTML comments: `<!-- goal: what | measured | target | pass|fail|unsettled | interval -->`
// (see bench/lib/stats.mjs).
//
// Flags: `--quick` (env KIRIMBAYAR_BENCH_QUICK=1) shortens every run for a smoke test; `--only a,b` runs a subset
// and keeps the other fragments from earlier runs; `--no-build` uses the packages as they are built.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseGoalComments } from "./lib/stats.mjs";

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = dirname(benchDir);
const resultsDir = join(benchDir, "results");
const TOTAL_BUDGET_MS = 34 * 60_000;

/** In report order. Time limits add up to less than the total budget, build included. */
const BENCHMARKS = [
  {
    name: "adapters",
    title: "Webhook route of each adapter vs its framework's baselines",
    timeoutMs: 420_000,
    quickArgs: ["--rounds", "1", "--seconds", "2", "--warmup", "1"],
  },
  { name: "webhook-pipeline", title: "Core webhook pipeline micro-benchmark", timeoutMs: 60_000 },
  { name: "client-overhead", title: "Client call vs raw fetch against the fake provider", timeoutMs: 60_000 },
  { name: "redis-vs-memory", title: "Redis idempotency store vs memory store", timeoutMs: 90_000 },
  { name: "postgres-vs-memory", title: "Postgres idempotency store vs memory store", timeoutMs: 150_000 },
  { name: "reconcile-overhead", title: "Reconciliation vs direct status calls", timeoutMs: 180_000 },
  { name: "bundle-size", title: "Size of the webhooks entry", timeoutMs: 30_000 },
  { name: "receiver-construction", title: "Building a webhook receiver", timeoutMs: 60_000 },
  { name: "redis-faults", title: "Redis outages: events applied twice or lost", timeoutMs: 330_000 },
  { name: "inbox", title: "Durable inbox: webhook route and worker throughput", timeoutMs: 480_000 },
  { name: "fake-lifecycle", title: "Per-test cost of the fake provider", timeoutMs: 60_000 },
];

const args = process.argv.slice(2);
const quick = args.includes("--quick") || process.env.KIRIMBAYAR_BENCH_QUICK === "1";
const onlyIndex = args.indexOf("--only");
const only = onlyIndex === -1 ? undefined : new Set((args[onlyIndex + 1] ?? "").split(",").filter(Boolean));
const unknown = [...(only ?? [])].filter((name) => !BENCHMARKS.some((b) => b.name === name));
if (unknown.length > 0) {
  console.error(`Unknown benchmark(s): ${unknown.join(", ")}. Known: ${BENCHMARKS.map((b) => b.name).join(", ")}`);
  process.exit(2);
}

const env = { ...process.env, TURBO_TELEMETRY_DISABLED: "1", ...(quick ? { KIRIMBAYAR_BENCH_QUICK: "1" } : {}) };
const startedAt = Date.now();

if (!args.includes("--no-build")) {
  console.log("== build: turbo run build --filter=@kirimbayar/bench...");
  const build = spawnSync(
    "pnpm",
    ["exec", "turbo", "run", "build", "--filter=@kirimbayar/bench...", "--output-logs=errors-only"],
    { cwd: repoRoot, stdio: "inherit", env, timeout: 180_000 },
  );
  if (build.status !== 0) {
    console.error("The build failed; no benchmark ran.");
    process.exit(1);
  }
}

/** Runs one benchmark script with a hard time limit; resolves to its outcome. */
function runBenchmark(benchmark, timeoutMs) {
  const script = join(benchDir, benchmark.name, "run.mjs");
  if (!existsSync(script))
    return Promise.resolve({ status: "missing", detail: `${relative(repoRoot, script)} does not exist` });
  return new Promise((resolve) => {
    const extraArgs = quick ? (benchmark.quickArgs ?? []) : [];
    const child = spawn(process.execPath, [script, ...extraArgs], {
      cwd: repoRoot,
      stdio: "inherit",
      env,
      detached: true,
    });
    const timer = setTimeout(() => {
      // The benchmark's own servers and load generators are its children: end the whole group.
      process.kill(-child.pid, "SIGTERM");
      resolve({ status: "timeout", detail: `stopped after ${Math.round(timeoutMs / 1000)} s` });
    }, timeoutMs);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve(code === 0 ? { status: "ok" } : { status: "failed", detail: `exit ${code ?? signal}` });
    });
  });
}

const outcomes = new Map();
mkdirSync(resultsDir, { recursive: true });
for (const benchmark of BENCHMARKS) {
  if (only !== undefined && !only.has(benchmark.name)) continue;
  const fragment = join(resultsDir, `${benchmark.name}.md`);
  rmSync(fragment, { force: true }); // never report figures from an earlier run as this run's
  const left = TOTAL_BUDGET_MS - (Date.now() - startedAt);
  if (left <= 5_000) {
    outcomes.set(benchmark.name, { status: "skipped", detail: "total time budget used up", ms: 0 });
    continue;
  }
  console.log(`\n== ${benchmark.name}: ${benchmark.title}`);
  const began = Date.now();
  const outcome = await runBenchmark(benchmark, Math.min(benchmark.timeoutMs, left));
  const ms = Date.now() - began;
  if (outcome.status === "ok" && !existsSync(fragment)) {
    outcomes.set(benchmark.name, { status: "failed", detail: `wrote no ${relative(repoRoot, fragment)}`, ms });
  } else {
    outcomes.set(benchmark.name, { ...outcome, ms });
  }
}

const RESULT_WORDS = { pass: "met", fail: "**not met**", unsettled: "unsettled: the interval straddles the goal" };
const sections = [];
const goals = [];
const runRows = [];
for (const benchmark of BENCHMARKS) {
  const fragmentPath = join(resultsDir, `${benchmark.name}.md`);
  const outcome = outcomes.get(benchmark.name);
  const fragment = existsSync(fragmentPath) ? readFileSync(fragmentPath, "utf8").trim() : undefined;
  if (outcome !== undefined) {
    runRows.push(
      `| ${benchmark.name} | ${outcome.status}${outcome.detail ? ` (${outcome.detail})` : ""} | ${(outcome.ms / 1000).toFixed(1)} s |`,
    );
  } else if (fragment !== undefined) {
    runRows.push(`| ${benchmark.name} | kept from an earlier run | – |`);
  }
  if (fragment === undefined) {
    sections.push(
      `## ${benchmark.title}\n\nNot measured in this run: ${outcome?.detail ?? outcome?.status ?? "not run"}.`,
    );
    continue;
  }
  for (const { what, measured, target, result, interval } of parseGoalComments(fragment)) {
    goals.push(`| ${what} | ${measured} | ${interval || "–"} | ${target} | ${RESULT_WORDS[result]} |`);
  }
  sections.push(fragment);
}

const cpu = cpus();
const report = `# Benchmark results

Written by \`pnpm bench\` (\`bench/run-all.mjs\`) on ${new Date().toISOString().slice(0, 10)}${quick ? " in **quick mode** (short runs: smoke test, not figures to quote)" : ""}.
Machine: ${cpu[0]?.model.trim() ?? "unknown CPU"}, ${cpu.length} cores, ${Math.round(totalmem() / 2 ** 30)} GB RAM, Node ${process.version}, ${process.platform}.
Every ratio compares runs made side by side in the same invocation, on loopback. Absolute figures depend on the
machine and on what else runs on it; ratios much less.

## Goals

"Measured" is the median of the ratios of paired rounds (each round measures both contenders back to back);
"interval" is a confidence interval for that median from the same rounds (order statistics, coverage in
brackets). A goal is met or not met only when the whole interval lies on one side of it; otherwise the run cannot
tell and the goal is reported as unsettled. On these machines the same route's throughput moves by up to 20 % from
minute to minute, which is why single medians are not trusted here.

| What | Measured | Interval | Goal | Result |
| --- | --- | --- | --- | --- |
${goals.length > 0 ? goals.join("\n") : "| (no goal reported) | | | | |"}

## Runs

| Benchmark | Status | Time |
| --- | --- | ---: |
${runRows.join("\n")}

${sections.join("\n\n")}
`;
writeFileSync(join(benchDir, "RESULTS.md"), report);
console.log(
  `\nWrote ${relative(repoRoot, join(benchDir, "RESULTS.md"))} in ${((Date.now() - startedAt) / 1000).toFixed(0)} s.`,
);
const failed = [...outcomes.values()].filter((o) => o.status !== "ok");
process.exit(failed.length === 0 ? 0 : 1);
