#!/usr/bin/env node
// The cost of the delivery journal (issue 30): the order-status webhook route with the journal on versus the same
// route with it off, over the memory, Postgres and Redis idempotency stores, each with its own journal (memory with
// MemoryDeliveryJournal, Postgres with PostgresDeliveryJournal in the store's database, Redis with
// RedisDeliveryJournal on the store's client). Express 5 + @kirimbayar/express, token verification, a new event per
// request, autocannon with 50 connections on loopback. Paired rounds (bench/lib/paired-rounds.mjs): in every round
// each store's two routes run back to back, their order flipping, so drift hits both alike; each goal figure is the
// median of the per-round journal-on / journal-off ratios, with a confidence interval from the rounds. Goal: at least
// 0.90x for each store. The transactional Postgres route (the entry written in the delivery's transaction: one more
// statement per delivery) is reported as context. Starts its own PostgreSQL and redis-server on loopback ports.
// Writes bench/results/journal-overhead.md.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPostgresServer } from "@kirimbayar/test-postgres-server";
import { startRedisServer } from "@kirimbayar/test-redis-server";
import pg from "pg";
import { measure as measureRoute, stopAll } from "../lib/orders-route-load.mjs";
import { pairedRatio, retryingStart, routeSummary, runPairedRounds } from "../lib/paired-rounds.mjs";
import { formatInterval, goalComment, VERDICT_WORDS } from "../lib/stats.mjs";
import { contextComment } from "../lib/summary.mjs";

const GOAL = 0.9;
const STORES = ["memory", "postgres", "redis"];
const CONTEXT = ["postgres-transactional"];
const quick = process.env.KIRIMBAYAR_BENCH_QUICK === "1";
const DURATION_S = quick ? 2 : 3;
const ROUNDS = quick ? 1 : 8;
const CONNECTIONS = 50;
const here = dirname(fileURLToPath(import.meta.url));
const benchDir = dirname(here);
const LABELS = {
  memory: "memory store + `MemoryDeliveryJournal`",
  postgres: "Postgres store + `PostgresDeliveryJournal` (batched)",
  redis: "Redis store + `RedisDeliveryJournal` (batched)",
  "postgres-transactional": "Postgres store, `transactional: true` + `PostgresDeliveryJournal` (in the transaction)",
};

let postgres;
let redis;
// The machine's load is reported with the figures: on a shared machine other work moves every route's req/s.
const loadAtStart = loadavg()[0];
try {
  postgres = await startPostgresServer();
  redis = await startRedisServer();
  const setup = new pg.Client({ connectionString: postgres.url });
  await setup.connect();
  const { PostgresDeliveryJournal, PostgresIdempotencyStore } = await import("@kirimbayar/core/postgres");
  for (const kind of ["postgres", "postgres_transactional"]) {
    await new PostgresIdempotencyStore({ client: setup, table: `bench_journal_idempotency_${kind}` }).ensureSchema();
  }
  await new PostgresDeliveryJournal({ client: setup, table: "bench_delivery_journal" }).ensureSchema();
  await setup.end();
  const targetOf = (route) =>
    route.startsWith("memory") ? undefined : route.startsWith("redis") ? redis.port : postgres.url;
  const load = { connections: CONNECTIONS, duration: DURATION_S, server: join(here, "server.mjs") };
  const measure = retryingStart((route, round) => measureRoute(route, targetOf(route), round, load));
  const groups = [...STORES, ...CONTEXT].map((store) => [store, `${store}-journal`]);
  const runs = await runPairedRounds(groups, ROUNDS, measure);
  const row = (route) => {
    const s = routeSummary(runs[route]);
    return `| ${route} | ${Math.round(s.rps)} | ${s.p50} ms | ${s.p99} ms | ${s.total} |`;
  };
  const machine = `1-minute load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end, on ${cpus().length} cores`;
  const goals = STORES.map((store) => ({ store, ...pairedRatio(runs, `${store}-journal`, store, GOAL) }));
  const contexts = CONTEXT.map((store) => ({ store, ...pairedRatio(runs, `${store}-journal`, store) }));
  const fragment = `## Delivery journal on vs off

Order-status webhook route on Express 5 with \`@kirimbayar/express\`, token verification, a new event on every request
(each claims and completes a fresh key), a no-op handler, autocannon ${CONNECTIONS} connections, ${ROUNDS} round(s) of ${DURATION_S} s per
route, a fresh server per run, medians. Each store's route runs with its journal (\`journal\` option of
\`createWebhookReceiver\`) and without, back to back in every round (paired rounds, the order flipping). PostgreSQL
(fsync off, as the test clusters, a \`pg\` Pool of 10 shared by store and journal) and Redis 7 (one ioredis client
shared by store and journal) on loopback, started by the benchmark. Batched journals write one multi-row INSERT (or
one script call) per 50 ms or 200 entries; the transactional route writes its entry in the delivery's transaction.
The goal figures are the medians of the per-round on / off ratios, with confidence intervals from the rounds
(bench/lib/stats.mjs). Machine: ${machine}.

| Route | req/s (median) | p50 latency | p99 latency | requests, all 2xx |
| --- | ---: | ---: | ---: | ---: |
${groups.flat().map(row).join("\n")}

${goals
  .map(
    (g) =>
      `${LABELS[g.store]}, on / off: **${g.ratio.toFixed(2)}x**, interval ${formatInterval(g.interval)} (goal at least ${GOAL.toFixed(2)}x): **${VERDICT_WORDS[g.result]}**. Per round: ${g.ratios.map((r) => r.toFixed(2)).join(", ")}.`,
  )
  .join("\n\n")}

${contexts
  .map(
    (c) =>
      `${LABELS[c.store]}, on / off: **${c.ratio.toFixed(2)}x**, interval ${formatInterval(c.interval)} (context: one more statement in each delivery's transaction). Per round: ${c.ratios.map((r) => r.toFixed(2)).join(", ")}.`,
  )
  .join("\n\n")}

${goals
  .map((g) =>
    goalComment({
      what: `${g.store} route with its delivery journal vs without (req/s)`,
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
      what: "transactional Postgres route with its journal in the transaction vs without (req/s)",
      measured: `${c.ratio.toFixed(2)}x`,
      interval: formatInterval(c.interval),
      why: "the entry commits with the effect: one more statement per delivery's transaction",
    }),
  )
  .join("\n")}
`;
  mkdirSync(join(benchDir, "results"), { recursive: true });
  writeFileSync(join(benchDir, "results/journal-overhead.md"), fragment);
  console.log(fragment);
} finally {
  await stopAll();
  await redis?.stop();
  await postgres?.destroy();
}
