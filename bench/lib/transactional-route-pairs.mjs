// What the transactional-route benchmarks share (transactional-routes directly on PostgreSQL, pooler-routes behind
// PgBouncer): the routes of lib/transactional-route-server.mjs, each library's route paired with its hand-rolled
// twin, served at once in rounds (lib/concurrent-runs.mjs) and judged by requests per CPU-second against a goal; the
// fragment's table, ratio lines and goal comments. Each benchmark keeps its own words around them.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { earlyRunsOf, runConcurrentRounds, warmWindows } from "./concurrent-runs.mjs";
import { ORDERS_ROUTE_TOKEN } from "./orders-route-token.mjs";
import { pairedRatio, routeSummary } from "./paired-rounds.mjs";
import { newOrderEvents } from "./post-load.mjs";
import { formatInterval, goalComment, VERDICT_WORDS } from "./stats.mjs";
import { contextComment } from "./summary.mjs";

/** The route server both benchmarks start for every route (`node <server> <route> <url>`). */
export const ROUTE_SERVER = join(dirname(fileURLToPath(import.meta.url)), "transactional-route-server.mjs");
export const GOAL = 0.9;
/** The goal figure: requests per CPU-second of each route's server, both served at once (lib/concurrent-runs.mjs). */
export const METRIC = "perCpuSecond";
export const CONNECTIONS = 50;

const quick = process.env.KIRIMBAYAR_BENCH_QUICK === "1";
/** 10 s of warm-up (V8 compiles each server meanwhile), 5 s measured, the 1-4 s window as context. */
export const WINDOWS = warmWindows(quick);
export const ROUNDS = quick ? 1 : 12;

/** Each library's route (webhook route through its binding) and its hand-rolled twin, as the route server names them. */
export const LIBRARIES = {
  pg: { name: "pg", route: "pg", hand: "pg-hand", binding: "`PostgresIdempotencyStore({ pool })`" },
  prisma: {
    name: "Prisma",
    route: "prisma",
    hand: "prisma-hand",
    binding: "`PostgresIdempotencyStore({ binding: prismaBinding(prisma) })`, `@prisma/adapter-pg`",
  },
  typeorm: {
    name: "TypeORM",
    route: "typeorm",
    hand: "typeorm-hand",
    binding: "`PostgresIdempotencyStore({ binding: typeormBinding(dataSource) })`",
  },
};

const TABLES = [
  "CREATE TABLE effects (event_key text PRIMARY KEY, order_no text NOT NULL, status text NOT NULL)",
  "CREATE TABLE processed_events (event_key text PRIMARY KEY)",
];

/** The routes' tables on the database at `url`: the effect rows, the hand-rolled routes' keys, the store's table. */
export async function createRouteTables(url) {
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  for (const sql of TABLES) await setup.query(sql);
  const { PostgresIdempotencyStore } = await import("@kirimbayar/core/postgres");
  await new PostgresIdempotencyStore({ client: setup }).ensureSchema(); // the table every library's store shares
  await setup.end();
}

/**
 * Serves `groups` in rounds (each route a fresh server on `urlOf(route)`, a new event per request) and gives each
 * library's ratio to its hand-rolled route: the goal figure, the plain req/s one, and the same in the early window.
 */
export async function runLibraryPairs({ libraries, groups, urlOf, serverCpus }) {
  const routeOf = (route, round) => ({
    args: [ROUTE_SERVER, route, ...urlOf(route)],
    body: newOrderEvents(route, round), // a fresh key to claim and an effect row to write
  });
  const runs = await runConcurrentRounds(groups, ROUNDS, routeOf, {
    connections: CONNECTIONS,
    ...WINDOWS,
    serverCpus,
    path: `/webhooks/orders?token=${ORDERS_ROUTE_TOKEN}`,
  });
  const results = libraries.map((library) => ({
    ...library,
    ...pairedRatio(runs, library.route, library.hand, GOAL, METRIC),
    plain: pairedRatio(runs, library.route, library.hand),
  }));
  // The same pairs in their first seconds (the window earlier runs were judged on): context.
  const earlyRuns = earlyRunsOf(runs);
  const early = libraries.map((l) => ({ name: l.name, ...pairedRatio(earlyRuns, l.route, l.hand, undefined, METRIC) }));
  return { runs, results, early };
}

/** Labels of each library's two routes in the table: `<name>: webhook route, <binding><suffix>`, and its twin. */
export function libraryLabels(libraries, routeSuffix = "") {
  return Object.fromEntries(
    libraries.flatMap((l) => [
      [l.route, `${l.name}: webhook route, ${l.binding}${routeSuffix}`],
      [l.hand, `${l.name}: hand-rolled transaction`],
    ]),
  );
}

/** The fragment's table of every route of `groups`. */
export function routeTable(groups, runs, labels) {
  const rows = groups.flat().map((route) => {
    const s = routeSummary(runs[route]);
    return `| ${labels[route]} | ${Math.round(s.perCpuSecond ?? 0)} | ${Math.round(s.rps)} | ${s.p50} ms | ${s.p99} ms | ${s.total} |`;
  });
  return `| Route | requests per CPU-second (median) | req/s, sharing the core (median) | p50 latency | p99 latency | requests, all 2xx |
| --- | ---: | ---: | ---: | ---: | ---: |
${rows.join("\n")}`;
}

export const perRound = (ratios) => ratios.map((r) => r.toFixed(2)).join(", ");

/** A paragraph per library: its ratio, interval and verdict; `where` follows its name (" behind PgBouncer"). */
export function ratioParagraphs(results, where = "") {
  return results
    .map(
      (r) =>
        `${r.name}${where}: webhook route / hand-rolled transaction, requests per CPU-second: **${r.ratio.toFixed(2)}x**, interval ${formatInterval(r.interval)} (goal at least ${GOAL.toFixed(2)}x): **${VERDICT_WORDS[r.result]}**. Per round: ${perRound(r.ratios)}. Plain req/s of the same runs: ${r.plain.ratio.toFixed(2)}x, interval ${formatInterval(r.plain.interval)}.`,
    )
    .join("\n\n");
}

/** The early window's ratios in one line: `pg **0.95x** (0.90-0.99), ...`. */
export function earlyFigures(early) {
  return early.map((e) => `${e.name} **${e.ratio.toFixed(2)}x** (${formatInterval(e.interval)})`).join(", ");
}

/** A goal comment per library (what bench/RESULTS.md is composed from); `what(result)` names the comparison. */
export function goalComments(results, what) {
  return results
    .map((r) =>
      goalComment({
        what: what(r),
        measured: `${r.ratio.toFixed(2)}x`,
        target: `>= ${GOAL.toFixed(2)}x`,
        result: r.result,
        interval: formatInterval(r.interval),
      }),
    )
    .join("\n");
}

/** A context comment per library for the early window; `what(early)` names the comparison. */
export function earlyComments(early, what, why) {
  return early
    .map((e) =>
      contextComment({ what: what(e), measured: `${e.ratio.toFixed(2)}x`, interval: formatInterval(e.interval), why }),
    )
    .join("\n");
}
