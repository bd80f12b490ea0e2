#!/usr/bin/env node
// The transactional order-status webhook route (Express 5 + @kirimbayar/express, token verification, `idempotency:
// { store, transactional: true }`, a handler writing one row into `effects` through `ctx.transaction` in its
// library's idiom) through pg, Prisma (prismaBinding, @prisma/adapter-pg) and TypeORM (typeormBinding), each against
// a hand-rolled Express route doing the same transaction with the same library (token, JSON.parse, the receiver's zod
// schema; begin, the key into processed_events on conflict do nothing, the same effect row, commit). Goal (issue 27):
// each library's route at least 0.90x its hand-rolled route. Context: the pg route's ratio to the memory-store route
// (a no-op handler, no database). A pool of 10 for every library, autocannon with 50 connections, a new event per
// request, rounds of concurrent runs (bench/lib/concurrent-runs.mjs: a pair served at once on one core, judged by
// requests per CPU-second of each server). Starts its own PostgreSQL (tests/postgres-server,
// fsync off) and generates the Prisma client offline into bench/.out. Writes bench/results/transactional-routes.md.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPostgresServer } from "@kirimbayar/test-postgres-server";
import { generatePrismaClient } from "@kirimbayar/test-prisma-generate";
import { earlyWindowWords } from "../lib/concurrent-runs.mjs";
import { pinningWords, pinRunnerAwayFromServer } from "../lib/cpu-pinning.mjs";
import { stopAll } from "../lib/orders-route-load.mjs";
import { pairedRatio } from "../lib/paired-rounds.mjs";
import { formatInterval } from "../lib/stats.mjs";
import { contextComment } from "../lib/summary.mjs";
import {
  CONNECTIONS,
  createRouteTables,
  earlyComments,
  earlyFigures,
  goalComments,
  LIBRARIES,
  libraryLabels,
  METRIC,
  perRound,
  ROUNDS,
  ratioParagraphs,
  routeTable,
  runLibraryPairs,
  WINDOWS,
} from "../lib/transactional-route-pairs.mjs";

const PAIRS = [LIBRARIES.pg, LIBRARIES.prisma, LIBRARIES.typeorm];
// The memory route runs beside pg's pair (pg in the middle), for the context ratio.
const GROUPS = [["memory", "pg", "pg-hand"], ...PAIRS.slice(1).map((l) => [l.route, l.hand])];
const here = dirname(fileURLToPath(import.meta.url));
const benchDir = dirname(here);
/** The compiled Prisma client, where the route server imports it from. */
const PRISMA_CLIENT = join(benchDir, ".out/transactional-routes/prisma-client/client.js");

/**
 * Generates the Prisma client of prisma/schema.prisma offline (@kirimbayar/test-prisma-generate: Prisma 7 with
 * /bin/true for its schema engine, see TOOLCHAIN.md §8) and compiles its TypeScript to JavaScript beside it in
 * bench/.out, unless the compiled client is newer than the schema.
 */
function buildPrismaClient() {
  if (!generatePrismaClient(join(here, "prisma/schema.prisma"), { marker: PRISMA_CLIENT })) return;
  const tsc = createRequire(join(benchDir, "../package.json")).resolve("typescript/bin/tsc");
  const generated = join(benchDir, ".out/transactional-routes/prisma-client-ts/client.ts");
  execFileSync(
    process.execPath,
    [
      tsc,
      ...["--outDir", dirname(PRISMA_CLIENT), "--module", "nodenext", "--moduleResolution", "nodenext"],
      ...["--target", "es2022", "--skipLibCheck", "--noCheck", "--declaration", "false", generated],
    ],
    { stdio: ["ignore", "inherit", "inherit"], timeout: 120_000 },
  );
}

let postgres;
// Before PostgreSQL starts, so that it and the load generator keep off the servers' core.
const serverCpus = pinRunnerAwayFromServer();
try {
  buildPrismaClient();
  postgres = await startPostgresServer();
  await createRouteTables(postgres.url);

  const { runs, results, early } = await runLibraryPairs({
    libraries: PAIRS,
    groups: GROUPS,
    urlOf: (route) => (route === "memory" ? [] : [postgres.url]),
    serverCpus,
  });
  const context = pairedRatio(runs, "pg", "memory", undefined, METRIC);
  const labels = { memory: "memory store, no-op handler (context)", ...libraryLabels(PAIRS) };
  const fragment = `## Transactional webhook route through pg, Prisma and TypeORM vs hand-rolled transactions

Order-status webhook route on Express 5 with \`@kirimbayar/express\`, token verification, \`idempotency: { store,
transactional: true }\`, a handler writing one row into \`effects\` through \`ctx.transaction\` in its library's idiom
(\`ctx.transaction.query(...)\` with pg, \`ctx.transaction.effect.create(...)\` with Prisma 7, \`ctx.transaction.insert(Effect,
...)\` with TypeORM 1.1). Each against a hand-rolled Express route with the same library: the token compared in
constant time, \`JSON.parse\`, the receiver's zod schema (\`orderStatusWebhookSchema\`) and key, then one
transaction: \`INSERT INTO processed_events ... ON CONFLICT DO NOTHING\` (a duplicate answered 200), the same effect
row, \`COMMIT\` (\`pool.connect\` + \`BEGIN\`/\`COMMIT\` with pg, \`prisma.$transaction(async (tx) => ...)\` with
\`tx.$executeRaw\`, \`dataSource.transaction(async (manager) => ...)\` with \`manager.query\`). A new event on every
request, a pool of 10 connections for every library. PostgreSQL 15 on loopback started by the benchmark (fsync off).

How it is measured (bench/lib/concurrent-runs.mjs): each library's two routes are served **at once**, each by a fresh
server process, both pinned to the same core, each driven by its own autocannon with ${CONNECTIONS} connections (${WINDOWS.warmupS} s
unrecorded, so that V8 has compiled each server, then ${WINDOWS.durationS} s measured; every request a new event, the warm-up's
included); ${pinningWords(serverCpus)}. Run one after the other, the same route's req/s moved by
10-30 % from one run to the next on these machines (per-round ratios from 0.79 to 1.15 for the same code), so the
goal was left unsettled run after run; served at once, both routes meet the same drift. The goal figure is each
route's **requests per CPU-second of its server** (its CPU time read from /proc): the req/s it sustains on a core
of its own. ${ROUNDS} round(s), the groups' order rotating and each pair's start order flipping; the goal figures are
the medians of the per-round ratios, with confidence intervals from the rounds (bench/lib/stats.mjs). The plain
req/s ratio of the same runs is given beside it. What this leaves out: PostgreSQL's own CPU per delivery, which is
higher for the store's claim (an advisory lock and the record's columns) than for the hand-rolled
\`INSERT ... ON CONFLICT DO NOTHING\` (measured in issue 27: 0.32-0.34 against 0.18 ms of backend CPU per transaction).

${routeTable(GROUPS, runs, labels)}

${ratioParagraphs(results)}

pg: transactional webhook route / memory-store route, requests per CPU-second: **${context.ratio.toFixed(2)}x**, interval ${formatInterval(context.interval)} (context: the transaction's round trips and the effect row, against no database at all). Per round: ${perRound(context.ratios)}.

In a fresh process's first seconds (measured ${earlyWindowWords(WINDOWS)} after the start, while V8 compiles; the window earlier runs were judged on), webhook route / hand-rolled transaction, requests per CPU-second: ${earlyFigures(early)}.

${goalComments(
  results,
  (r) =>
    `transactional route through ${r.name} vs hand-rolled ${r.name} transaction (requests per CPU-second, served at once)`,
)}
${earlyComments(
  early,
  (e) =>
    `transactional route through ${e.name} vs hand-rolled ${e.name} transaction, ${earlyWindowWords(WINDOWS)} after the servers start (requests per CPU-second)`,
  "a fresh process still compiling: the window earlier runs were judged on",
)}
${contextComment({
  what: "transactional route through pg (with an effect row) vs memory-store route (requests per CPU-second, served at once)",
  measured: `${context.ratio.toFixed(2)}x`,
  interval: formatInterval(context.interval),
  why: "the transaction's round trips and effect row against no database at all: the route is judged against a hand-rolled transaction",
})}
`;
  mkdirSync(join(benchDir, "results"), { recursive: true });
  writeFileSync(join(benchDir, "results/transactional-routes.md"), fragment);
  console.log(fragment);
} finally {
  await stopAll();
  await postgres?.destroy();
}
