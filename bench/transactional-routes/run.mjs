#!/usr/bin/env node
// The transactional order-status webhook route (Express 5 + @kirimbayar/express, token verification, `idempotency:
// { store, transactional: true }`, a handler writing one row into `effects` through `ctx.transaction` in its
// library's idiom) through pg, Prisma (prismaBinding, @prisma/adapter-pg) and TypeORM (typeormBinding), each against
// a hand-rolled Express route doing the same transaction with the same library (token, JSON.parse, the receiver's zod
// schema; begin, the key into processed_events on conflict do nothing, the same effect row, commit). Goal (issue 27):
// each library's route at least 0.90x its hand-rolled route. Context: the pg route's ratio to the memory-store route
// (a no-op handler, no database). A pool of 10 for every library, autocannon with 50 connections, a new event per
// request, rounds of paired runs (bench/lib/paired-rounds.mjs). Starts its own PostgreSQL (tests/postgres-server,
// fsync off) and generates the Prisma client offline into bench/.out. Writes bench/results/transactional-routes.md.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import { measure as measureRoute, stopAll } from "../lib/orders-route-load.mjs";
import { pairedRatio, retryingStart, routeSummary, runPairedRounds } from "../lib/paired-rounds.mjs";
import { formatInterval, goalComment, VERDICT_WORDS } from "../lib/stats.mjs";
import { contextComment } from "../lib/summary.mjs";

const GOAL = 0.9;
const LIBRARIES = [
  { name: "pg", route: "pg", hand: "pg-hand", binding: "`PostgresIdempotencyStore({ pool })`" },
  {
    name: "Prisma",
    route: "prisma",
    hand: "prisma-hand",
    binding: "`PostgresIdempotencyStore({ binding: prismaBinding(prisma) })`, `@prisma/adapter-pg`",
  },
  {
    name: "TypeORM",
    route: "typeorm",
    hand: "typeorm-hand",
    binding: "`PostgresIdempotencyStore({ binding: typeormBinding(dataSource) })`",
  },
];
// The memory route runs beside pg's pair (pg in the middle), for the context ratio.
const GROUPS = [["memory", "pg", "pg-hand"], ...LIBRARIES.slice(1).map((l) => [l.route, l.hand])];
const quick = process.env.KIRIMBAYAR_BENCH_QUICK === "1";
const DURATION_S = quick ? 2 : 3;
const ROUNDS = quick ? 1 : 11;
const CONNECTIONS = 50;
const here = dirname(fileURLToPath(import.meta.url));
const benchDir = dirname(here);
const server = join(benchDir, "lib/transactional-route-server.mjs");
/** The compiled Prisma client, where the route server imports it from. */
const PRISMA_CLIENT = join(benchDir, ".out/transactional-routes/prisma-client/client.js");

const TABLES = [
  "CREATE TABLE effects (event_key text PRIMARY KEY, order_no text NOT NULL, status text NOT NULL)",
  "CREATE TABLE processed_events (event_key text PRIMARY KEY)",
];

/**
 * Generates the Prisma client of prisma/schema.prisma offline (Prisma 7 only needs no schema engine for `generate`
 * when told where one is: /bin/true, see TOOLCHAIN.md §8) and compiles its TypeScript to JavaScript beside it in
 * bench/.out, unless the compiled client is newer than the schema.
 */
function generatePrismaClient() {
  const schema = join(here, "prisma/schema.prisma");
  if (existsSync(PRISMA_CLIENT) && statSync(PRISMA_CLIENT).mtimeMs >= statSync(schema).mtimeMs) return;
  const require = createRequire(import.meta.url);
  execFileSync(process.execPath, [require.resolve("prisma/build/index.js"), "generate", "--schema", schema], {
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: "/bin/true",
      PRISMA_HIDE_UPDATE_MESSAGE: "1",
      CHECKPOINT_DISABLE: "1",
    },
    stdio: ["ignore", "ignore", "inherit"],
    timeout: 120_000,
  });
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
try {
  generatePrismaClient();
  postgres = await startPostgresServer();
  const setup = new pg.Client({ connectionString: postgres.url });
  await setup.connect();
  for (const sql of TABLES) await setup.query(sql);
  const { PostgresIdempotencyStore } = await import("@kirimbayar/core/postgres");
  await new PostgresIdempotencyStore({ client: setup }).ensureSchema(); // the table every library's store shares
  await setup.end();

  const measure = (route, round) =>
    measureRoute(route, route === "memory" ? undefined : postgres.url, round, {
      connections: CONNECTIONS,
      duration: DURATION_S,
      server,
    });
  const runs = await runPairedRounds(GROUPS, ROUNDS, retryingStart(measure));

  const results = LIBRARIES.map((library) => ({
    ...library,
    ...pairedRatio(runs, library.route, library.hand, GOAL),
  }));
  const context = pairedRatio(runs, "pg", "memory");
  const labels = {
    memory: "memory store, no-op handler (context)",
    ...Object.fromEntries(
      LIBRARIES.flatMap((l) => [
        [l.route, `${l.name}: webhook route, ${l.binding}`],
        [l.hand, `${l.name}: hand-rolled transaction`],
      ]),
    ),
  };
  const rows = GROUPS.flat().map((route) => {
    const s = routeSummary(runs[route]);
    return `| ${labels[route]} | ${Math.round(s.rps)} | ${s.p50} ms | ${s.p99} ms | ${s.total} |`;
  });
  const perRound = (ratios) => ratios.map((r) => r.toFixed(2)).join(", ");
  const fragment = `## Transactional webhook route through pg, Prisma and TypeORM vs hand-rolled transactions

Order-status webhook route on Express 5 with \`@kirimbayar/express\`, token verification, \`idempotency: { store,
transactional: true }\`, a handler writing one row into \`effects\` through \`ctx.transaction\` in its library's idiom
(\`ctx.transaction.query(...)\` with pg, \`ctx.transaction.effect.create(...)\` with Prisma 7, \`ctx.transaction.insert(Effect,
...)\` with TypeORM 1.1). Each against a hand-rolled Express route with the same library: the token compared in
constant time, \`JSON.parse\`, the receiver's zod schema (\`orderStatusWebhookSchema\`) and key, then one
transaction: \`INSERT INTO processed_events ... ON CONFLICT DO NOTHING\` (a duplicate answered 200), the same effect
row, \`COMMIT\` (\`pool.connect\` + \`BEGIN\`/\`COMMIT\` with pg, \`prisma.$transaction(async (tx) => ...)\` with
\`tx.$executeRaw\`, \`dataSource.transaction(async (manager) => ...)\` with \`manager.query\`). A new event on every
request, a pool of 10 connections for every library, autocannon ${CONNECTIONS} connections, a fresh server per run,
${ROUNDS} round(s) of ${DURATION_S} s per route after one warm-up run each; in every round each library's two routes
run back to back (the groups' order rotates, each pair's order flips). PostgreSQL 15 on loopback started by the
benchmark (fsync off). The goal figures are the medians of the per-round ratios, with confidence intervals from the
rounds (bench/lib/stats.mjs).

| Route | req/s (median) | p50 latency | p99 latency | requests, all 2xx |
| --- | ---: | ---: | ---: | ---: |
${rows.join("\n")}

${results
  .map(
    (r) =>
      `${r.name}: webhook route / hand-rolled transaction: **${r.ratio.toFixed(2)}x**, interval ${formatInterval(r.interval)} (goal at least ${GOAL.toFixed(2)}x): **${VERDICT_WORDS[r.result]}**. Per round: ${perRound(r.ratios)}.`,
  )
  .join("\n\n")}

pg: transactional webhook route / memory-store route: **${context.ratio.toFixed(2)}x**, interval ${formatInterval(context.interval)} (context: PostgreSQL's round trips on the same two cores, not the SDK). Per round: ${perRound(context.ratios)}.

${results
  .map((r) =>
    goalComment({
      what: `transactional route through ${r.name} vs hand-rolled ${r.name} transaction (req/s)`,
      measured: `${r.ratio.toFixed(2)}x`,
      target: `>= ${GOAL.toFixed(2)}x`,
      result: r.result,
      interval: formatInterval(r.interval),
    }),
  )
  .join("\n")}
${contextComment({
  what: "transactional route through pg (with an effect row) vs memory-store route (req/s)",
  measured: `${context.ratio.toFixed(2)}x`,
  interval: formatInterval(context.interval),
  why: "PostgreSQL's round trips on the same two cores set this ratio: the route is judged against a hand-rolled transaction",
})}
`;
  mkdirSync(join(benchDir, "results"), { recursive: true });
  writeFileSync(join(benchDir, "results/transactional-routes.md"), fragment);
  console.log(fragment);
} finally {
  await stopAll();
  await postgres?.destroy();
}
