#!/usr/bin/env node
// The transactional order-status webhook route behind PgBouncer in transaction mode (issue 37): what the pooled
// connection strings of Supabase, Neon, DigitalOcean and Heroku give. The same routes as bench/transactional-routes
// (lib/transactional-route-server.mjs: Express 5, token verification, `idempotency: { store, transactional: true }`,
// a handler writing one effect row through `ctx.transaction`), each against a hand-rolled Express route doing the same
// transaction with the same library, both pointed at the same PgBouncer (Debian's 1.18, started by the benchmark as
// tests/pgbouncer-server does, `pool_mode = transaction`, 20 server connections) in front of one PostgreSQL (fsync
// off). With its default options the store meets the pooler's refusal of its prepared statements in the warm-up and
// switches to statements the pooler keeps; the measured window shows what it costs from then on. Goal: each library's
// route at least 0.90x its hand-rolled route. Rounds of concurrent runs (bench/lib/concurrent-runs.mjs: a pair served
// at once on one core, judged by requests per CPU-second of each server). Writes bench/results/pooler-routes.md.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPgBouncer } from "@kirimbayar/test-pgbouncer-server";
import { startPostgresServer } from "@kirimbayar/test-postgres-server";
import { earlyWindowWords } from "../lib/concurrent-runs.mjs";
import { pinningWords, pinRunnerAwayFromServer } from "../lib/cpu-pinning.mjs";
import { stopAll } from "../lib/orders-route-load.mjs";
import {
  CONNECTIONS,
  createRouteTables,
  earlyComments,
  earlyFigures,
  goalComments,
  LIBRARIES,
  libraryLabels,
  ROUNDS,
  ratioParagraphs,
  routeTable,
  runLibraryPairs,
  WINDOWS,
} from "../lib/transactional-route-pairs.mjs";

const PAIRS = [LIBRARIES.pg, LIBRARIES.typeorm];
const GROUPS = PAIRS.map((l) => [l.route, l.hand]);
/** PgBouncer's server connections: the two routes' pools of 10 each share them, a transaction at a time. */
const BOUNCER_POOL = 20;
const benchDir = dirname(dirname(fileURLToPath(import.meta.url)));

let postgres;
let bouncer;
// Before PostgreSQL and PgBouncer start, so that they and the load generator keep off the servers' core.
const serverCpus = pinRunnerAwayFromServer();
try {
  postgres = await startPostgresServer();
  bouncer = await startPgBouncer(postgres, { poolMode: "transaction", poolSize: BOUNCER_POOL });
  await createRouteTables(postgres.url);

  const { runs, results, early } = await runLibraryPairs({
    libraries: PAIRS,
    groups: GROUPS,
    urlOf: () => [bouncer.url],
    serverCpus,
  });
  const fragment = `## Transactional webhook route behind PgBouncer (transaction mode) vs hand-rolled transactions

The transactional order-status route of \`transactional-routes\` (Express 5 with \`@kirimbayar/express\`, token
verification, \`idempotency: { store, transactional: true }\`, a handler writing one row into \`effects\` through
\`ctx.transaction\`: \`ctx.transaction.query(...)\` with pg, \`ctx.transaction.insert(Effect, ...)\` with TypeORM 1.1),
store created with **default options**, against a hand-rolled Express route doing the same checks and the same
transaction with the same library (\`BEGIN\`; \`INSERT INTO processed_events ... ON CONFLICT DO NOTHING\`; the effect
row; \`COMMIT\`). Both routes' pools (10 connections each) go through **one PgBouncer 1.18 in \`pool_mode =
transaction\`** (${BOUNCER_POOL} server connections) to PostgreSQL 15 on loopback (fsync off), both started by the benchmark
(tests/pgbouncer-server, tests/postgres-server). In the warm-up the store meets the pooler's refusal of its prepared
statements (42P05/26000) and switches its pool to statements the pooler keeps (logged once, no delivery failed: a
route answering anything but 2xx stops the benchmark); the measured window is what the route costs from then on.

How it is measured: as \`transactional-routes\` (bench/lib/concurrent-runs.mjs): each library's two routes served
**at once**, each by a fresh server process, both pinned to the same core, each driven by its own autocannon with
${CONNECTIONS} connections (${WINDOWS.warmupS} s unrecorded, then ${WINDOWS.durationS} s measured; every request a new event); ${pinningWords(serverCpus)}
(PgBouncer and PostgreSQL run there too). The goal figure is each route's **requests per CPU-second of its server**.
${ROUNDS} round(s), groups rotating and each pair's start order flipping; medians of the per-round ratios with
confidence intervals (bench/lib/stats.mjs).

${routeTable(GROUPS, runs, libraryLabels(PAIRS, ", default options"))}

${ratioParagraphs(results, " behind PgBouncer")}

In a fresh process's first seconds (${earlyWindowWords(WINDOWS)} after the start, while V8 compiles and the store meets the pooler), webhook route / hand-rolled transaction, requests per CPU-second: ${earlyFigures(early)}.

${goalComments(
  results,
  (r) =>
    `transactional route through ${r.name} behind PgBouncer (transaction mode) vs hand-rolled ${r.name} transaction behind it (requests per CPU-second, served at once)`,
)}
${earlyComments(
  early,
  (e) =>
    `transactional route through ${e.name} behind PgBouncer vs hand-rolled, ${earlyWindowWords(WINDOWS)} after the servers start (requests per CPU-second)`,
  "a fresh process still compiling and meeting the pooler's refusals",
)}
`;
  mkdirSync(join(benchDir, "results"), { recursive: true });
  writeFileSync(join(benchDir, "results/pooler-routes.md"), fragment);
  console.log(fragment);
} finally {
  await stopAll();
  await bouncer?.destroy();
  await postgres?.destroy();
}
