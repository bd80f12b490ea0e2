#!/usr/bin/env node
// The order-status webhook route with the Postgres idempotency store, plain and with transactional handlers, versus
// the same route with the in-memory store: Express 5 + @kirimbayar/express, token verification, a unique event per
// request (every request claims and completes a fresh key: two statements, or BEGIN, lock timeout, claim, reset and
// COMMIT in transactional mode), autocannon with 50 connections on loopback, a pg Pool of 10. Each round measures the
// three back to back (the order rotates), so drift hits them alike; the goal figures are medians of the per-round
// ratios to memory, with confidence intervals from the rounds. Goal (issue 16): Postgres at least 0.5x memory. The
// transactional route's ratio is context since issue 29 (its goal was 0.4x): it is judged against a hand-rolled route
// doing the same transaction with the same library instead. Starts its own PostgreSQL server (tests/postgres-server) on a free loopback port.
// Writes bench/results/postgres-vs-memory.md.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import { measure as measureRoute, stopAll } from "../lib/orders-route-load.mjs";
import { formatInterval, goalComment, median, medianInterval, VERDICT_WORDS, verdict } from "../lib/stats.mjs";
import { contextComment } from "../lib/summary.mjs";

const GOALS = { postgres: 0.5 };
const CONTEXT = ["postgres-transactional"];
const STORES = ["memory", "postgres", "postgres-transactional"];
const quick = process.env.KIRIMBAYAR_BENCH_QUICK === "1";
const DURATION_S = quick ? 2 : 3;
const ROUNDS = quick ? 1 : 8;
const CONNECTIONS = 50;
const here = dirname(fileURLToPath(import.meta.url));
const benchDir = dirname(here);
const measure = (store, url, round) =>
  measureRoute(store, store === "memory" ? undefined : url, round, { connections: CONNECTIONS, duration: DURATION_S });

let postgres;
try {
  postgres = await startPostgresServer();
  const setup = new pg.Client({ connectionString: postgres.url });
  await setup.connect();
  const { PostgresIdempotencyStore } = await import("@kirimbayar/core/postgres");
  for (const table of ["bench_idempotency_postgres", "bench_idempotency_postgres_transactional"]) {
    await new PostgresIdempotencyStore({ client: setup, table }).ensureSchema();
  }
  await setup.end();
  for (const store of STORES) await measure(store, postgres.url, "warmup"); // JIT, loopback and pool warm-up
  const runs = Object.fromEntries(STORES.map((store) => [store, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    const order = STORES.map((_, i) => STORES[(i + round) % STORES.length]);
    for (const store of order) {
      const run = await measure(store, postgres.url, round);
      console.log(`round ${round} ${store}: ${Math.round(run.rps)} req/s, p50 ${run.p50} ms, p99 ${run.p99} ms`);
      if (run.non2xx > 0 || run.errors > 0)
        throw new Error(`${store}: ${run.non2xx} non-2xx answers, ${run.errors} errors`);
      runs[store].push(run);
    }
  }
  const summary = (store) => ({
    rps: median(runs[store].map((r) => r.rps)),
    p50: median(runs[store].map((r) => r.p50)),
    p99: median(runs[store].map((r) => r.p99)),
    total: runs[store].reduce((sum, r) => sum + r.total, 0),
  });
  const labels = {
    memory: "memory (`MemoryIdempotencyStore`)",
    postgres: "Postgres (`PostgresIdempotencyStore`, pg Pool)",
    "postgres-transactional": "Postgres, `transactional: true`",
  };
  const rows = STORES.map((store) => {
    const s = summary(store);
    return `| ${labels[store]} | ${Math.round(s.rps)} | ${s.p50} ms | ${s.p99} ms | ${s.total} |`;
  });
  const verdicts = Object.entries(GOALS).map(([store, goal]) => {
    const ratios = runs[store].map((run, i) => run.rps / runs.memory[i].rps);
    const interval = medianInterval(ratios);
    return { store, goal, ratios, ratio: median(ratios), interval, result: verdict(interval, goal, "at-least") };
  });
  const contexts = CONTEXT.map((store) => {
    const ratios = runs[store].map((run, i) => run.rps / runs.memory[i].rps);
    return { store, ratios, ratio: median(ratios), interval: medianInterval(ratios) };
  });
  const fragment = `## Postgres idempotency store vs memory store

Order-status webhook route on Express 5 with \`@kirimbayar/express\`, token verification, a new event on every request
(each claims and completes a fresh key), a no-op handler, autocannon ${CONNECTIONS} connections, ${ROUNDS} round(s) of ${DURATION_S} s per
store (the order rotates), a fresh server per run, medians. PostgreSQL on loopback started by the benchmark
(fsync off, as the test clusters), a \`pg\` Pool of 10, a table per mode; the store batches concurrent claims and
completions (its default). The goal figures are the medians of the per-round ratios to
the memory store, with confidence intervals from the rounds (bench/lib/stats.mjs).

| Store | req/s (median) | p50 latency | p99 latency | requests, all 2xx |
| --- | ---: | ---: | ---: | ---: |
${rows.join("\n")}

${verdicts
  .map(
    (v) =>
      `${labels[v.store]} / memory: **${v.ratio.toFixed(2)}x**, interval ${formatInterval(v.interval)} (goal at least ${v.goal.toFixed(2)}x): **${VERDICT_WORDS[v.result]}**. Per round: ${v.ratios.map((r) => r.toFixed(2)).join(", ")}.`,
  )
  .join("\n\n")}

${contexts
  .map(
    (c) =>
      `${labels[c.store]} / memory: **${c.ratio.toFixed(2)}x**, interval ${formatInterval(c.interval)} (context: judged against a hand-rolled route doing the same transaction). Per round: ${c.ratios.map((r) => r.toFixed(2)).join(", ")}.`,
  )
  .join("\n\n")}

${verdicts
  .map((v) =>
    goalComment({
      what: `${v.store === "postgres" ? "Postgres-store" : "transactional Postgres-store"} route vs memory-store route (req/s)`,
      measured: `${v.ratio.toFixed(2)}x`,
      target: `>= ${v.goal.toFixed(2)}x`,
      result: v.result,
      interval: formatInterval(v.interval),
    }),
  )
  .join("\n")}
${contexts
  .map((c) =>
    contextComment({
      what: "transactional Postgres-store route vs memory-store route (req/s)",
      measured: `${c.ratio.toFixed(2)}x`,
      interval: formatInterval(c.interval),
      why: "the goal until issue 29 (>= 0.40x): the transactional route is judged against a hand-rolled route doing the same transaction",
    }),
  )
  .join("\n")}
`;
  mkdirSync(join(benchDir, "results"), { recursive: true });
  writeFileSync(join(benchDir, "results/postgres-vs-memory.md"), fragment);
  console.log(fragment);
} finally {
  await stopAll();
  await postgres?.destroy();
}
