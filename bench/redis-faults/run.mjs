#!/usr/bin/env node
// The Redis fault campaign of packages/core/test/idempotency-redis-faults.test.ts, at full size (1,000 events per
// scenario, three rounds, as `pnpm chaos`), reported as a results fragment: a real redis-server with AOF
// `appendfsync always` is killed or frozen mid-stream while two receivers take deliveries with 30 % duplicates.
// Goal (issue 15): an outage shorter than the lease applies no event twice and loses none.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const benchDir = dirname(dirname(fileURLToPath(import.meta.url)));
const repoRoot = dirname(benchDir);
const quick = process.env.KIRIMBAYAR_BENCH_QUICK === "1";
const work = mkdtempSync(join(tmpdir(), "kirimbayar-faults-"));
const reportPath = join(work, "report.json");

const run = spawnSync("pnpm", ["exec", "vitest", "run", "--project", "core", "test/idempotency-redis-faults.test.ts"], {
  cwd: repoRoot,
  stdio: "inherit",
  timeout: 320_000,
  env: {
    ...process.env,
    KIRIMBAYAR_CHAOS: quick ? "" : "full",
    KIRIMBAYAR_CHAOS_ROUNDS: quick ? "1" : "3",
    KIRIMBAYAR_FAULTS_REPORT: reportPath,
  },
});
let reports;
try {
  reports = JSON.parse(readFileSync(reportPath, "utf8"));
} catch {
  console.error(`The fault campaign wrote no report (vitest exit ${run.status}).`);
  process.exit(1);
} finally {
  rmSync(work, { recursive: true, force: true });
}

const describe = (name) => {
  const [kind, round] = name.split("-");
  if (kind === "kill") return `killed (SIGKILL), restarted 1.5 s later (round ${Number(round) + 1})`;
  if (kind === "freeze") return `frozen (SIGSTOP) for 1.5 s (round ${Number(round) + 1})`;
  return "frozen for 3 s (longer than the lease: context, not a goal)";
};
const short = reports.filter((report) => report.name !== "long-freeze");
const doubles = short.reduce((sum, report) => sum + report.doubles, 0);
const lost = short.reduce((sum, report) => sum + report.lost, 0);
const events = short.reduce((sum, report) => sum + report.events, 0);
const pass = (value) => (value === 0 && short.length >= 2 && run.status === 0 ? "pass" : "fail");

const rows = reports
  .map(
    (report) =>
      `| ${describe(report.name)} | ${report.events} | ${report.deliveries} | ${report.statuses[503] ?? 0} | ${report.statuses[409] ?? 0} | ${report.doubles} | ${report.lost} |`,
  )
  .join("\n");
const fragment = `## Redis outages: events applied twice or lost

The fault campaign of \`packages/core/test/idempotency-redis-faults.test.ts\` at ${quick ? "quick (200 events)" : "full"} size: a real
\`redis-server\` with AOF \`appendfsync always\`, two receivers sharing it, ${reports[0]?.events ?? "?"} events per scenario with
30 % duplicates, lease 2 s, and a provider that retries every non-200 answer. The outage starts a third of the way in.

| Outage | Events | Deliveries | 503 answers | 409 answers | Applied twice | Lost |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
${rows}

Goal: an outage shorter than the lease applies no event twice and loses none (**${pass(doubles + lost) === "pass" ? "met" : "NOT met"}**
over ${events} events). Longer outages are described in core's README ("When Redis goes away").

<!-- goal: Redis outage shorter than the lease: events applied twice | ${doubles} of ${events} | = 0 | ${pass(doubles)} -->
<!-- goal: Redis outage shorter than the lease: events lost | ${lost} of ${events} | = 0 | ${pass(lost)} -->
`;

mkdirSync(join(benchDir, "results"), { recursive: true });
writeFileSync(join(benchDir, "results/redis-faults.md"), fragment);
console.log(fragment);
