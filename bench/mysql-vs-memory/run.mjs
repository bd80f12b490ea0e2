#!/usr/bin/env node
// The order-status webhook route with MysqlIdempotencyStore (@kirimbayar/core/mysql over a mysql2 pool of 10) on a
// real MariaDB with durable settings (tests/mariadb-server: innodb_flush_log_at_trx_commit=1, no binary log), two
// goals of issue 28, each measured on paired rounds (bench/lib/paired-rounds.mjs):
// (a) the route with the MySQL store (non-transactional, a no-op handler) against the same route with the memory
//     store: at least 0.50x, as the Postgres store's goal;
// (b) the transactional route (`idempotency: { store, transactional: true }`, a handler writing one row into
//     `effects` through `ctx.transaction`, the mysql2 connection) against a hand-rolled Express route doing the same
//     transaction with mysql2 (token, JSON.parse, the receiver's zod schema and key; START TRANSACTION, INSERT IGNORE
//     INTO processed_events, the same effect row, COMMIT): at least 0.90x.
// Express 5 + @kirimbayar/express, token verification, a new event per request, autocannon with 50 connections, a
// fresh server per run (bench/lib/transactional-route-server.mjs). Writes bench/results/mysql-vs-memory.md.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMariaDbServer } from "@kirimbayar/test-mariadb-server";
import mysql from "mysql2/promise";
import { measure as measureRoute, stopAll } from "../lib/orders-route-load.mjs";
import { pairedRatio, retryingStart, routeSummary, runPairedRounds } from "../lib/paired-rounds.mjs";
import { formatInterval, goalComment, median, VERDICT_WORDS } from "../lib/stats.mjs";

const GOALS = [
  {
    route: "mysql",
    baseline: "memory",
    goal: 0.5,
    what: "MySQL-store route vs memory-store route (MariaDB, req/s)",
    prose: "MySQL-store route / memory-store route",
  },
  {
    route: "mysql-transactional",
    baseline: "mysql-hand",
    goal: 0.9,
    what: "transactional route through mysql2 vs hand-rolled mysql2 transaction (MariaDB, req/s)",
    prose: "transactional MySQL-store route / hand-rolled mysql2 transaction",
  },
];
const GROUPS = GOALS.map((g) => [g.route, g.baseline]);
const quick = process.env.KIRIMBAYAR_BENCH_QUICK === "1";
const DURATION_S = quick ? 2 : 3;
const ROUNDS = quick ? 1 : 11;
const CONNECTIONS = 50;
const here = dirname(fileURLToPath(import.meta.url));
const benchDir = dirname(here);
const server = join(benchDir, "lib/transactional-route-server.mjs");

const TABLES = [
  "CREATE TABLE effects (event_key VARCHAR(255) PRIMARY KEY, order_no VARCHAR(255) NOT NULL, status VARCHAR(64) NOT NULL)",
  "CREATE TABLE processed_events (event_key VARCHAR(255) PRIMARY KEY)",
];

let mariadb;
let monitor;
try {
  mariadb = await startMariaDbServer();
  const setup = await mysql.createConnection(mariadb.url);
  for (const sql of TABLES) await setup.query(sql);
  const { MysqlIdempotencyStore } = await import("@kirimbayar/core/mysql");
  for (const table of ["kirimbayar_idempotency", "kirimbayar_idempotency_plain"]) {
    await new MysqlIdempotencyStore({ connection: setup, table }).ensureSchema();
  }
  const [[{ version }]] = await setup.query("SELECT VERSION() AS version");
  await setup.end();

  // Statements per delivery, as the server counts them (`Questions`: every statement any client sent, the monitor's
  // own read included, hence the 1 taken off): read around each recorded run on a connection of its own.
  monitor = await mysql.createConnection(mariadb.url);
  const questions = async () => Number((await monitor.query("SHOW GLOBAL STATUS LIKE 'Questions'"))[0][0].Value);
  const statementsPerDelivery = Object.fromEntries(GROUPS.flat().map((route) => [route, []]));
  const measure = async (route, round) => {
    const before = await questions();
    const run = await measureRoute(route, route === "memory" ? undefined : mariadb.url, round, {
      connections: CONNECTIONS,
      duration: DURATION_S,
      server,
    });
    const after = await questions();
    if (round !== "warmup" && run.total > 0) statementsPerDelivery[route].push((after - before - 1) / run.total);
    return run;
  };
  const runs = await runPairedRounds(GROUPS, ROUNDS, retryingStart(measure));
  const results = GOALS.map((g) => ({ ...g, ...pairedRatio(runs, g.route, g.baseline, g.goal) }));
  const labels = {
    memory: "memory store (`MemoryIdempotencyStore`), no-op handler",
    mysql: "MySQL store (`MysqlIdempotencyStore({ pool })`), no-op handler",
    "mysql-transactional": "MySQL store, `transactional: true`, one effect row through `ctx.transaction`",
    "mysql-hand": "hand-rolled mysql2 transaction, the same effect row",
  };
  const rows = GROUPS.flat().map((route) => {
    const s = routeSummary(runs[route]);
    const statements = median(statementsPerDelivery[route]).toFixed(2);
    return `| ${labels[route]} | ${Math.round(s.rps)} | ${s.p50} ms | ${s.p99} ms | ${s.total} | ${statements} |`;
  });
  const fragment = `## MySQL idempotency store on MariaDB vs memory store and a hand-rolled transaction

Order-status webhook route on Express 5 with \`@kirimbayar/express\`, token verification, a new event on every
request, \`MysqlIdempotencyStore\` over a \`mysql2\` pool of 10 on MariaDB ${version} on loopback started by the
benchmark with durable settings (\`innodb_flush_log_at_trx_commit=1\`, no binary log), a table per mode.
(a) the non-transactional route (a no-op handler) against the same route with the memory store. (b) the transactional
route (\`idempotency: { store, transactional: true }\`, the handler writing one row into \`effects\` through
\`ctx.transaction\`) against a hand-rolled Express route doing the same checks (token compared in constant time,
\`JSON.parse\`, the receiver's zod schema and key) and the same transaction with mysql2 (\`START TRANSACTION\`,
\`INSERT IGNORE INTO processed_events\`, the same effect row, \`COMMIT\`). Autocannon ${CONNECTIONS} connections, a
fresh server per run, ${ROUNDS} round(s) of ${DURATION_S} s per route after one warm-up run each; in every round each
pair runs back to back (the pairs' order rotates, each pair's order flips). The goal figures are the medians of the
per-round ratios, with confidence intervals from the rounds (bench/lib/stats.mjs). Statements per delivery: the
server's count of statements received during a run (\`Questions\`, prepared executions included) over its requests,
median of the rounds; a batch of the MySQL store serves many deliveries with one statement.

| Route | req/s (median) | p50 latency | p99 latency | requests, all 2xx | statements per delivery |
| --- | ---: | ---: | ---: | ---: | ---: |
${rows.join("\n")}

${results
  .map(
    (r) =>
      `${r.prose}: **${r.ratio.toFixed(2)}x**, interval ${formatInterval(r.interval)} (goal at least ${r.goal.toFixed(2)}x): **${VERDICT_WORDS[r.result]}**. Per round: ${r.ratios.map((x) => x.toFixed(2)).join(", ")}.`,
  )
  .join("\n\n")}

${results
  .map((r) =>
    goalComment({
      what: r.what,
      measured: `${r.ratio.toFixed(2)}x`,
      target: `>= ${r.goal.toFixed(2)}x`,
      result: r.result,
      interval: formatInterval(r.interval),
    }),
  )
  .join("\n")}
`;
  mkdirSync(join(benchDir, "results"), { recursive: true });
  writeFileSync(join(benchDir, "results/mysql-vs-memory.md"), fragment);
  console.log(fragment);
} finally {
  await stopAll();
  await monitor?.end();
  await mariadb?.destroy();
}
