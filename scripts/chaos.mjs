#!/usr/bin/env node
// `pnpm chaos`: the full-size fault campaigns (KIRIMBAYAR_CHAOS=full), one vitest run per group, one after the other
// (they kill and restart servers and measure recovery times: never in parallel with each other). The normal test
// run (`pnpm test`) runs a small version of each. Ends with one line per group and exits non-zero if any failed.
//
// Usage: node scripts/chaos.mjs [--only <group>[,<group>]]
import { spawnSync } from "node:child_process";

/** Campaign groups: a vitest project and its files. `serial`: the files one at a time (they share the machine). */
const CAMPAIGNS = [
  { group: "redis-outages", project: "core", files: ["test/idempotency-redis-faults.test.ts"] },
  {
    group: "redis-failover",
    project: "core",
    serial: true,
    files: ["test/idempotency-redis-sentinel.test.ts", "test/idempotency-redis-cluster-failover.test.ts"],
  },
  {
    group: "database-crashes",
    project: "conformance",
    serial: true,
    files: [
      "test/never-lose-a-payment.test.ts",
      "test/never-lose-a-payment-prisma.test.ts",
      "test/never-lose-a-payment-typeorm.test.ts",
      "test/never-lose-a-payment-mariadb.test.ts",
      "test/never-lose-a-payment-mariadb-typeorm.test.ts",
    ],
  },
  { group: "inbox-outages", project: "inbox", files: ["test/chaos/inbox-chaos.test.ts"] },
  {
    group: "inbox-failover",
    project: "inbox",
    serial: true,
    files: ["test/bullmq-sentinel.test.ts", "test/bullmq-cluster.test.ts"],
  },
  { group: "pooler-crash", project: "poolers", files: ["test/pooler-crash.test.ts"] },
  // Every adapter and an inbox worker behind nginx or HAProxy, one instance stopped mid-campaign and replaced.
  { group: "rolling-deploy", project: "rolling-deploy", serial: true, files: [] },
];

const args = process.argv.slice(2);
const onlyIndex = args.indexOf("--only");
const only = onlyIndex === -1 ? undefined : new Set(args[onlyIndex + 1]?.split(",").filter(Boolean));
const unknown = [...(only ?? [])].filter((group) => !CAMPAIGNS.some((c) => c.group === group));
if (unknown.length > 0) {
  console.error(`Unknown group(s): ${unknown.join(", ")}. Known: ${CAMPAIGNS.map((c) => c.group).join(", ")}`);
  process.exit(2);
}

const results = [];
for (const campaign of CAMPAIGNS.filter((c) => only === undefined || only.has(c.group))) {
  const vitestArgs = ["exec", "vitest", "run", "--project", campaign.project, ...campaign.files];
  if (campaign.serial) vitestArgs.push("--no-file-parallelism");
  console.log(`\n== ${campaign.group}: vitest ${vitestArgs.slice(2).join(" ")}`);
  const started = Date.now();
  const run = spawnSync("pnpm", vitestArgs, { stdio: "inherit", env: { ...process.env, KIRIMBAYAR_CHAOS: "full" } });
  results.push({ group: campaign.group, ok: run.status === 0, seconds: Math.round((Date.now() - started) / 1000) });
}
console.log("");
for (const { group, ok, seconds } of results) console.log(`${ok ? "ok  " : "FAIL"} ${group} (${seconds} s)`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
