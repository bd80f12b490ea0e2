#!/usr/bin/env node
// The one benchmark command (`pnpm bench`): builds what the benchmarks import, runs every benchmark one after the
// other (never in parallel: they share the machine's cores), then composes bench/RESULTS.md from the markdown
// fragments the benchmarks write to bench/results/<name>.md.
//
// Each benchmark is a `bench/<name>/run.mjs` that writes `bench/results/<name>.md`. A fragment may declare goal rows
// for the summary table as HTML comments: `<!-- goal: what | measured | target | pass|fail|unsettled | interval -->`
// (see bench/lib/stats.mjs), and context rows, reported beside the goals but judged against none:
// `<!-- context: what | measured | interval | why -->` (see bench/lib/summary.mjs). Every fragment carries the date
// of the run that wrote it (`<!-- run: YYYY-MM-DD -->`, added here), and the summary shows it for every row: a
// RESULTS.md may combine runs of different days.
//
// A benchmark stopped by its time limit (or failing before it wrote its fragment) keeps its last figures: its
// fragment is restored, never deleted. Each fragment carries its run's duration (`<!-- duration: N s -->`), and the
// next run's limit is the longer of the declared `timeoutMs` and that duration with a margin (bench/lib/fragments.mjs).
//
// Flags: `--quick` (env KIRIMBAYAR_BENCH_QUICK=1) shortens every run for a smoke test; `--only a,b` runs a subset
// and keeps the other fragments from earlier runs; `--no-build` uses the packages as they are built;
// `--compose-only` runs nothing and writes RESULTS.md from the fragments as they are.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { mergeAdapterFragments } from "./lib/adapter-runs.mjs";
import { settledFragment, timeLimitOf, withDurationStamp } from "./lib/fragments.mjs";
import { parseGoalComments } from "./lib/stats.mjs";
import { parseContextComments, rowRun, runDateOf, withRunStamp } from "./lib/summary.mjs";

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = dirname(benchDir);
const resultsDir = join(benchDir, "results");
/** In report order. `timeoutMs`: the declared limit of a full run (a longer last run raises it, see above). */
const BENCHMARKS = [
  {
    name: "adapters",
    title: "Webhook route of each adapter vs its framework's baselines",
    timeoutMs: 420_000,
    quickArgs: ["--rounds", "1", "--seconds", "2", "--warmup", "1"],
    // One run per framework, each row dated: frameworks this run did not measure (it failed or stopped half-way)
    // keep their last figures instead of disappearing from RESULTS.md.
    mergeFragment: mergeAdapterFragments,
  },
  {
    name: "allocations",
    title: "Bytes allocated per webhook delivery, webhook route vs the same-checks route",
    timeoutMs: 240_000,
  },
  { name: "webhook-pipeline", title: "Core webhook pipeline micro-benchmark", timeoutMs: 60_000 },
  { name: "client-overhead", title: "Client call vs raw fetch against the fake provider", timeoutMs: 60_000 },
  { name: "redis-vs-memory", title: "Redis idempotency store vs memory store", timeoutMs: 90_000 },
  { name: "postgres-vs-memory", title: "Postgres idempotency store vs memory store", timeoutMs: 150_000 },
  {
    name: "transactional-routes",
    title: "Transactional webhook route through pg, Prisma and TypeORM vs hand-rolled transactions",
    // 12 rounds of 3 pairs, each 10 s of warm-up and 5 s measured, plus start-up: 684 s on 2026-12-02.
    timeoutMs: 1_000_000,
  },
  {
    name: "pooler-routes",
    title: "Transactional webhook route behind PgBouncer (transaction mode) vs hand-rolled transactions",
    // 2 pairs x 13 runs (a warm-up run, 12 rounds) of 15 s plus each pair's start: about 7.5 minutes.
    timeoutMs: 600_000,
  },
  {
    name: "mysql-vs-memory",
    title: "MySQL idempotency store (MariaDB) vs memory store and a hand-rolled transaction",
    timeoutMs: 300_000,
  },
  {
    name: "journal-overhead",
    title: "Delivery journal on vs off (memory, Postgres and Redis stores)",
    // 12 rounds of 4 pairs (the twin check included) on warm servers: 1,104 s on 2026-12-02.
    timeoutMs: 1_700_000,
  },
  { name: "reconcile-overhead", title: "Reconciliation vs direct status calls", timeoutMs: 180_000 },
  { name: "bundle-size", title: "Size of the webhooks entry", timeoutMs: 30_000 },
  { name: "receiver-construction", title: "Building a webhook receiver", timeoutMs: 60_000 },
  { name: "redis-faults", title: "Redis outages: events applied twice or lost", timeoutMs: 330_000 },
  {
    name: "rate-quoter",
    title: "Rate quoter: checkout quotes within a budget, provider calls, coalescing, cost of a hit, Redis outage",
    timeoutMs: 900_000,
  },
  { name: "inbox", title: "Durable inbox: webhook route and worker throughput", timeoutMs: 2_400_000 },
  { name: "fake-lifecycle", title: "Per-test cost of the fake provider", timeoutMs: 60_000 },
];

const args = process.argv.slice(2);
const quick = args.includes("--quick") || process.env.KIRIMBAYAR_BENCH_QUICK === "1";
const composeOnly = args.includes("--compose-only");
const onlyIndex = args.indexOf("--only");
const only = onlyIndex === -1 ? undefined : new Set((args[onlyIndex + 1] ?? "").split(",").filter(Boolean));
const unknown = [...(only ?? [])].filter((name) => !BENCHMARKS.some((b) => b.name === name));
if (unknown.length > 0) {
  console.error(`Unknown benchmark(s): ${unknown.join(", ")}. Known: ${BENCHMARKS.map((b) => b.name).join(", ")}`);
  process.exit(2);
}

const env = { ...process.env, TURBO_TELEMETRY_DISABLED: "1", ...(quick ? { KIRIMBAYAR_BENCH_QUICK: "1" } : {}) };
const startedAt = Date.now();
// For run-all's own test: every benchmark's limit, whatever it declares.
const forcedLimitMs = Number(process.env.KIRIMBAYAR_BENCH_LIMIT_MS) || undefined;

if (!composeOnly && !args.includes("--no-build")) {
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
const today = () => new Date().toISOString().slice(0, 10);
const selected = BENCHMARKS.filter((b) => !composeOnly && (only === undefined || only.has(b.name)));
const fragmentFileOf = (benchmark) => join(resultsDir, `${benchmark.name}.md`);
const readIfThere = (path) => (existsSync(path) ? readFileSync(path, "utf8") : undefined);
const limitOf = (benchmark) => forcedLimitMs ?? timeLimitOf(benchmark, readIfThere(fragmentFileOf(benchmark)), quick);
// The selected benchmarks' limits, and some slack for the build and the gaps between them.
const totalBudgetMs = selected.reduce((sum, benchmark) => sum + limitOf(benchmark), 5 * 60_000);
for (const benchmark of selected) {
  const fragment = fragmentFileOf(benchmark);
  const previous = readIfThere(fragment);
  const limitMs = limitOf(benchmark);
  // Removed so that a fragment found after the run is this run's; restored below when the run leaves none.
  rmSync(fragment, { force: true });
  const left = totalBudgetMs - (Date.now() - startedAt);
  if (left <= 5_000) {
    outcomes.set(benchmark.name, { status: "skipped", detail: "total time budget used up", ms: 0 });
    if (previous !== undefined) writeFileSync(fragment, previous);
    continue;
  }
  console.log(`\n== ${benchmark.name}: ${benchmark.title} (limit ${Math.round(Math.min(limitMs, left) / 1000)} s)`);
  const began = Date.now();
  const outcome = await runBenchmark(benchmark, Math.min(limitMs, left));
  const ms = Date.now() - began;
  const written = readIfThere(fragment);
  if (outcome.status === "ok" && written === undefined) {
    outcomes.set(benchmark.name, { status: "failed", detail: `wrote no ${relative(repoRoot, fragment)}`, ms });
  } else {
    outcomes.set(benchmark.name, { ...outcome, ms });
  }
  const settled = settledFragment({ previous, written, outcome, merge: benchmark.mergeFragment });
  if (settled === undefined) continue;
  const fromThisRun = settled !== previous;
  // Rows this run did not write keep their own run's date (the merge keeps them dated); a full run's duration sizes
  // the next run's limit.
  const stamped = fromThisRun ? withRunStamp(settled, today()) : settled;
  writeFileSync(fragment, fromThisRun && !quick ? withDurationStamp(stamped, ms) : stamped);
}

/**
 * A fragment's text and run date. A fragment without a run stamp was written by its benchmark run directly
 * (`node bench/<name>/run.mjs`), not through this script: its file's time is its run's, stamped in it now so the date
 * stays with the figures.
 */
function readFragment(path) {
  if (!existsSync(path)) return undefined;
  let text = readFileSync(path, "utf8");
  let date = runDateOf(text);
  if (date === undefined) {
    date = statSync(path).mtime.toISOString().slice(0, 10);
    text = withRunStamp(text, date);
    writeFileSync(path, text);
  }
  return { text: text.trim(), date };
}

// Fragments of benchmarks not in the list above (a new benchmark not yet added to it) are reported too, after the
// others: the summary never drops a goal row because of a name.
const known = new Set(BENCHMARKS.map((benchmark) => benchmark.name));
const extras = readdirSync(resultsDir)
  .filter((file) => file.endsWith(".md") && !known.has(file.slice(0, -3)))
  .sort()
  .map((file) => ({ name: file.slice(0, -3), title: file.slice(0, -3) }));

const RESULT_WORDS = { pass: "met", fail: "**not met**", unsettled: "unsettled: the interval straddles the goal" };
const sections = [];
const goals = [];
const contextRows = [];
const runRows = [];
for (const benchmark of [...BENCHMARKS, ...extras]) {
  const fragmentPath = join(resultsDir, `${benchmark.name}.md`);
  const outcome = outcomes.get(benchmark.name);
  const fragment = readFragment(fragmentPath);
  const dates = fragment
    ? [...new Set([fragment.date, ...parseGoalComments(fragment.text).map((g) => rowRun(g.what).date)])]
        .filter(Boolean)
        .sort()
    : [];
  if (outcome !== undefined) {
    runRows.push(
      `| ${benchmark.name} | ${outcome.status}${outcome.detail ? ` (${outcome.detail})` : ""} | ${(outcome.ms / 1000).toFixed(1)} s |`,
    );
  } else if (fragment !== undefined) {
    runRows.push(
      `| ${benchmark.name} | kept from the run${dates.length > 1 ? "s" : ""} of ${dates.join(" and ")} | – |`,
    );
  }
  if (fragment === undefined) {
    sections.push(
      `## ${benchmark.title}\n\nNot measured in this run: ${outcome?.detail ?? outcome?.status ?? "not run"}.`,
    );
    continue;
  }
  for (const goal of parseGoalComments(fragment.text)) {
    const { what, date } = rowRun(goal.what, fragment.date);
    goals.push(
      `| ${what} | ${goal.measured} | ${goal.interval || "–"} | ${goal.target} | ${RESULT_WORDS[goal.result]} | ${date} |`,
    );
  }
  for (const row of parseContextComments(fragment.text)) {
    const { what, date } = rowRun(row.what, fragment.date);
    contextRows.push(`| ${what} | ${row.measured} | ${row.interval || "–"} | ${row.why} | ${date} |`);
  }
  const failedNote =
    outcome !== undefined && outcome.status !== "ok"
      ? `> This run ${outcome.status}${outcome.detail ? ` (${outcome.detail})` : ""}: the figures below are from the earlier runs they are dated with.\n\n`
      : "";
  sections.push(failedNote + fragment.text);
}

const cpu = cpus();
const report = `# Benchmark results

${
  composeOnly
    ? `Composed by \`node bench/run-all.mjs --compose-only\` on ${today()} from the fragments of earlier runs: every row says which run it comes from.`
    : `Written by \`pnpm bench\` (\`bench/run-all.mjs\`) on ${today()}${quick ? " in **quick mode** (short runs: smoke test, not figures to quote)" : ""}; figures kept from earlier runs say so (the Run column, and the runs table).`
}
${composeOnly ? "Machine composing it (the runs' own unless a section says otherwise)" : "Machine"}: ${cpu[0]?.model.trim() ?? "unknown CPU"}, ${cpu.length} cores, ${Math.round(totalmem() / 2 ** 30)} GB RAM, Node ${process.version}, ${process.platform}.
Every ratio compares runs made side by side in the same invocation, on loopback. Absolute figures depend on the
machine and on what else runs on it; ratios much less.

## Goals

"Measured" is the median of the ratios of paired rounds (each round measures both contenders back to back, or,
for rows saying "served at once", serves both at once on one pinned core and compares their requests per
CPU-second: see README.md, "Concurrent runs"); "interval" is a confidence interval for that median from the same
rounds (order statistics, coverage in brackets). A goal is met or not met only when the whole interval lies on one
side of it; otherwise the run cannot tell and the goal is reported as unsettled. On these machines the same route's
throughput moves by up to 20 % from minute to minute, which is why single medians are not trusted here.

| What | Measured | Interval | Goal | Result | Run |
| --- | --- | --- | --- | --- | --- |
${goals.length > 0 ? goals.join("\n") : "| (no goal reported) | | | | | |"}

## Context

Figures kept in view beside the goals, judged against none.

| What | Measured | Interval | Why context | Run |
| --- | --- | --- | --- | --- |
${contextRows.length > 0 ? contextRows.join("\n") : "| (no context row reported) | | | | |"}

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
