#!/usr/bin/env node
// The cost of the delivery journal (issue 30): the order-status webhook route with the journal on versus the same
// route with it off, over the memory, Postgres and Redis idempotency stores, each with its own journal (memory with
// MemoryDeliveryJournal, Postgres with PostgresDeliveryJournal in the store's database, Redis with
// RedisDeliveryJournal on the store's client). Express 5 + @kirimbayar/express, token verification, a new event per
// request, autocannon with 50 connections on loopback. Concurrent rounds (bench/lib/concurrent-runs.mjs): in every
// round each store's two routes are served at once on one core, so drift hits both alike, and judged by requests per
// CPU-second of each server; each goal figure is the median of the per-round journal-on / journal-off ratios, with a
// confidence interval from the rounds. Goal: at least
// 0.90x for each store. The transactional Postgres route (the entry written in the delivery's transaction: one more
// statement per delivery) is reported as context. Starts its own PostgreSQL and redis-server on loopback ports.
// Writes bench/results/journal-overhead.md.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { earlyRunsOf, earlyWindowWords, runConcurrentRounds, warmWindows } from "../lib/concurrent-runs.mjs";
import { pinningWords, pinRunnerAwayFromServer } from "../lib/cpu-pinning.mjs";
import { stopAll } from "../lib/orders-route-load.mjs";
import { ORDERS_ROUTE_TOKEN } from "../lib/orders-route-token.mjs";
import { pairedRatio, routeSummary } from "../lib/paired-rounds.mjs";
import { newOrderEvents } from "../lib/post-load.mjs";
import { formatInterval, goalComment, VERDICT_WORDS } from "../lib/stats.mjs";
import { contextComment } from "../lib/summary.mjs";
import { startJournalDatabases } from "./databases.mjs";

const GOAL = 0.9;
const STORES = ["memory", "postgres", "redis"];
const CONTEXT = ["postgres-transactional"];
const quick = process.env.KIRIMBAYAR_BENCH_QUICK === "1";
/** 10 s of warm-up (V8 compiles each server meanwhile), 5 s measured, the 1-4 s window as context. */
const WINDOWS = warmWindows(quick);
const ROUNDS = quick ? 1 : 12;
/** The goal figure: requests per CPU-second of each route's server, both served at once (lib/concurrent-runs.mjs). */
const METRIC = "perCpuSecond";
/** The memory route against a second copy of itself: how far from 1.00x the method reads two equal routes. */
const TWIN = "memory-twin";
const CONNECTIONS = 50;
const here = dirname(fileURLToPath(import.meta.url));
const benchDir = dirname(here);
const LABELS = {
  memory: "memory store + `MemoryDeliveryJournal`",
  postgres: "Postgres store + `PostgresDeliveryJournal` (batched)",
  redis: "Redis store + `RedisDeliveryJournal` (batched)",
  "postgres-transactional": "Postgres store, `transactional: true` + `PostgresDeliveryJournal` (in the transaction)",
};

let databases;
// The machine's load is reported with the figures: on a shared machine other work moves every route's req/s.
const loadAtStart = loadavg()[0];
// Before the databases start, so that they and the load generator share the cores the server does not run on.
const serverCpus = pinRunnerAwayFromServer();
try {
  databases = await startJournalDatabases();
  const routeOf = (route, round) => ({
    args: [join(here, "server.mjs"), route === TWIN ? "memory" : route, ...databases.targetOf(route)],
    body: newOrderEvents(route, round), // a fresh key to claim and complete, and an entry to journal
  });
  const groups = [...[...STORES, ...CONTEXT].map((store) => [store, `${store}-journal`]), ["memory", TWIN]];
  // The twin pair shares the memory route's runs' name space: its own runs are kept apart under "memory@twin".
  const runs = await runConcurrentRounds(
    groups.map((group) => (group[1] === TWIN ? ["memory@twin", TWIN] : group)),
    ROUNDS,
    (route, round) => routeOf(route === "memory@twin" ? "memory" : route, round),
    {
      connections: CONNECTIONS,
      ...WINDOWS,
      serverCpus,
      path: `/webhooks/orders?token=${ORDERS_ROUTE_TOKEN}`,
    },
  );
  const row = (route) => {
    const s = routeSummary(runs[route]);
    return `| ${route} | ${Math.round(s.perCpuSecond ?? 0)} | ${Math.round(s.rps)} | ${s.p50} ms | ${s.p99} ms | ${s.total} |`;
  };
  const machine = `1-minute load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end, on ${cpus().length} cores`;
  const ratioOf = (route, baseline, goal) => ({
    ...pairedRatio(runs, route, baseline, goal, METRIC),
    plain: pairedRatio(runs, route, baseline),
  });
  const goals = STORES.map((store) => ({ store, ...ratioOf(`${store}-journal`, store, GOAL) }));
  // The same pairs in their first seconds (the window earlier runs were judged on): context.
  const earlyRuns = earlyRunsOf(runs);
  const earlyOf = (store) => pairedRatio(earlyRuns, `${store}-journal`, store, undefined, METRIC);
  const early = STORES.map((store) => ({ store, ...earlyOf(store) }));
  const contexts = CONTEXT.map((store) => ({ store, ...ratioOf(`${store}-journal`, store) }));
  const twin = ratioOf(TWIN, "memory@twin");
  const perRound = (ratios) => ratios.map((r) => r.toFixed(2)).join(", ");
  const plainWords = (r) =>
    `Plain req/s of the same runs: ${r.plain.ratio.toFixed(2)}x, interval ${formatInterval(r.plain.interval)}.`;
  const fragment = `## Delivery journal on vs off

Order-status webhook route on Express 5 with \`@kirimbayar/express\`, token verification, a new event on every request
(each claims and completes a fresh key), a no-op handler. Each store's route with its journal (\`journal\` option of
\`createWebhookReceiver\`) against the same route without. PostgreSQL (fsync off, as the test clusters, a \`pg\` Pool
of 10 shared by store and journal) and Redis 7 (one ioredis client shared by store and journal) on loopback, started
by the benchmark. Batched journals write one multi-row INSERT (or one script call) per 50 ms or 200 entries; the
transactional route writes its entry in the delivery's transaction.

How it is measured (bench/lib/concurrent-runs.mjs): the two routes of a pair are served **at once**, each by a fresh
server process, both pinned to the same core, each driven by its own autocannon with ${CONNECTIONS} connections (${WINDOWS.warmupS} s
unrecorded, then ${WINDOWS.durationS} s measured; every request a new event, the warm-up's included); ${pinningWords(serverCpus)}.
Run one after the other, the same route's req/s moved by 10-30 % between back-to-back runs on these machines, and no
goal ever settled; served at once, both meet the same drift. The goal figure is each route's **requests per
CPU-second of its server** (its CPU time read from /proc): the req/s it sustains on a core of its own. The journal's
database work (PostgreSQL's inserts, Redis's script) runs on the other core and is not in it. The ${WINDOWS.warmupS} s warm-up
lets V8 finish compiling: a fresh server answers about a third of its settled requests per CPU-second in its first
seconds, while its helper threads compile (bench/README.md, "The journal's cost in a warm process"); the same pairs
measured ${earlyWindowWords(WINDOWS)} after their start (the window of earlier runs) are given below as context. ${ROUNDS} round(s), the
pairs' order rotating and each pair's start order flipping; the goal figures are the medians of the per-round on /
off ratios, with confidence intervals from the rounds (bench/lib/stats.mjs). A memory route served beside a second
copy of itself shows how far from 1.00x the method reads two equal routes. Machine: ${machine}.

| Route | requests per CPU-second (median) | req/s, sharing the core (median) | p50 latency | p99 latency | requests, all 2xx |
| --- | ---: | ---: | ---: | ---: | ---: |
${groups
  .flat()
  .map((route, i, all) => (route === "memory" && all.indexOf(route) !== i ? "memory@twin" : route))
  .map(row)
  .join("\n")}

${goals
  .map(
    (g) =>
      `${LABELS[g.store]}, on / off, requests per CPU-second: **${g.ratio.toFixed(2)}x**, interval ${formatInterval(g.interval)} (goal at least ${GOAL.toFixed(2)}x): **${VERDICT_WORDS[g.result]}**. Per round: ${perRound(g.ratios)}. ${plainWords(g)}`,
  )
  .join("\n\n")}

${contexts
  .map(
    (c) =>
      `${LABELS[c.store]}, on / off, requests per CPU-second: **${c.ratio.toFixed(2)}x**, interval ${formatInterval(c.interval)} (context: one more statement in each delivery's transaction). Per round: ${perRound(c.ratios)}. ${plainWords(c)}`,
  )
  .join("\n\n")}

Memory route beside a copy of itself (the method's own reading of two equal routes), requests per CPU-second: **${twin.ratio.toFixed(2)}x**, interval ${formatInterval(twin.interval)}. Per round: ${perRound(twin.ratios)}.

In a fresh process's first seconds (measured ${earlyWindowWords(WINDOWS)} after the start, while V8 compiles; the window earlier runs were judged on), on / off, requests per CPU-second: ${early.map((e) => `${e.store} **${e.ratio.toFixed(2)}x** (${formatInterval(e.interval)})`).join(", ")}.

${goals
  .map((g) =>
    goalComment({
      what: `${g.store} route with its delivery journal vs without (requests per CPU-second, served at once)`,
      measured: `${g.ratio.toFixed(2)}x`,
      target: `>= ${GOAL.toFixed(2)}x`,
      result: g.result,
      interval: formatInterval(g.interval),
    }),
  )
  .join("\n")}
${contexts
  .map((c) =>
    contextComment({
      what: "transactional Postgres route with its journal in the transaction vs without (requests per CPU-second, served at once)",
      measured: `${c.ratio.toFixed(2)}x`,
      interval: formatInterval(c.interval),
      why: "the entry commits with the effect: one more statement per delivery's transaction",
    }),
  )
  .join("\n")}
${early
  .map((e) =>
    contextComment({
      what: `${e.store} route with its delivery journal vs without, ${earlyWindowWords(WINDOWS)} after the servers start (requests per CPU-second)`,
      measured: `${e.ratio.toFixed(2)}x`,
      interval: formatInterval(e.interval),
      why: "a fresh process still compiling: the window earlier runs were judged on",
    }),
  )
  .join("\n")}
${contextComment({
  what: "memory route vs a copy of itself, served at once (requests per CPU-second)",
  measured: `${twin.ratio.toFixed(2)}x`,
  interval: formatInterval(twin.interval),
  why: "how far from 1.00x the method reads two equal routes",
})}
`;
  mkdirSync(join(benchDir, "results"), { recursive: true });
  writeFileSync(join(benchDir, "results/journal-overhead.md"), fragment);
  console.log(fragment);
} finally {
  await stopAll();
  await databases?.stop();
}
