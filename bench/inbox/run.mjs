#!/usr/bin/env node
// The durable inbox (@kirimbayar/inbox) on both engines, pg-boss (a real PostgreSQL) and BullMQ (a real
// redis-server), both started by the benchmark on loopback.
// (a) The webhook route in inbox mode, answered once the event is written to the queue, against the same route in
//     direct mode with the memory store: Express 5 + @kirimbayar/express, the order-status receiver with token
//     verification, a new event on every request, autocannon with 50 connections, a fresh server per run (no worker
//     runs, the queue is emptied between runs). Each round measures the three routes back to back, the order
//     rotating; the goal figures are the medians of the per-round ratios to the direct route, with confidence
//     intervals from the rounds. Goal: inbox route at least 0.5x the direct memory route, per engine.
// (b) End-to-end throughput of one worker: a queue holding 20,000 events (2,000 in quick mode), then one worker
//     process (`startInboxWorker`, the memory idempotency store, a no-op handler) runs them; events per second from
//     its start to the last handler. Concurrency 100 (tuned) in every round, the default 10 in the first three for
//     context (on pg-boss each fetch reads the whole backlog, so the batch size decides the throughput). Engines
//     alternate round by round. Goal: at least 1,000 events/s per engine with the tuned concurrency (median of the
//     rounds, interval from the rounds).
// (c) Draining a backlog: one worker (concurrency 100, no-op handler) through a queue holding 20,000, 100,000 and
//     500,000 events (pre-filled in bulk); in each round each larger backlog between two drains of 20,000. The inbox
//     exists for long outages, after which its backlog is large: pg-boss 10's own fetch sorted every waiting event
//     on each call (868 events/s at 100,000 against 2,618 at 20,000). Goal: the drain rate at 100,000 and at 500,000
//     at least 0.8x the rate at 20,000 (median of the per-round ratios, interval from the rounds), per engine.
// KIRIMBAYAR_BENCH_QUICK=1: one round of each, shorter runs (under a minute). Writes bench/results/inbox.md.
// Flags: --backlog-only (part c only; replaces that section of inbox.md and keeps the others), --engines
// pg-boss,bullmq, --backlog-rounds N (default 5), --backlog-sizes 20000,100000,500000.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPostgresServer } from "@kirimbayar/test-postgres-server";
import { startRedisServer } from "@kirimbayar/test-redis-server";
import { Redis } from "ioredis";
import PgBoss from "pg-boss";
import { measure, startProcess, stopAll } from "../lib/orders-route-load.mjs";
import { formatInterval, goalComment, median, medianInterval, VERDICT_WORDS, verdict } from "../lib/stats.mjs";
import { dropPgBossQueue, fillBullMq, fillPgBoss } from "./backlog.mjs";

const ROUTE_GOAL = 0.5;
const WORKER_GOAL = 1_000;
const BACKLOG_GOAL = 0.8;
const args = process.argv.slice(2);
const flag = (name) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const ENGINES = (flag("--engines") ?? "pg-boss,bullmq").split(",").filter(Boolean);
for (const engine of ENGINES) if (!["pg-boss", "bullmq"].includes(engine)) throw new Error(`unknown engine ${engine}`);
const ROUTES = ["memory", ...ENGINES];
const backlogOnly = args.includes("--backlog-only");
const quick = process.env.KIRIMBAYAR_BENCH_QUICK === "1";
/** (c) Backlog sizes; the first is the reference the others are compared with. */
const BACKLOG_SIZES = (flag("--backlog-sizes") ?? (quick ? "2000,10000,50000" : "20000,100000,500000"))
  .split(",")
  .map(Number);
const BACKLOG_ROUNDS = Number(flag("--backlog-rounds") ?? (quick ? 1 : 5));
const DURATION_S = quick ? 2 : 3;
const ROUTE_ROUNDS = quick ? 1 : 8;
const CONNECTIONS = 50;
const EVENTS = quick ? 2_000 : 20_000;
const WORKER_ROUNDS = quick ? 1 : 5;
/** The goal is checked with concurrency TUNED; startInboxWorker's default (10) is measured for context. */
const TUNED = 100;
const DEFAULT_CONCURRENCY = 10;
const DEFAULT_ROUNDS = quick ? 1 : 3;
const here = dirname(fileURLToPath(import.meta.url));
const benchDir = dirname(here);
let postgres;
let redis;
let boss;
let redisClient;
let queues = 0;
const queueName = (what) => `bench-${what}-${process.pid}-${++queues}`;

/** Empties what a run left in the queues (outside the timed window). */
async function dropQueue(engine, name) {
  if (engine === "pg-boss") {
    await dropPgBossQueue(boss, name); // pg-boss 10 refuses to delete a queue that still holds jobs
  } else if (engine === "bullmq") {
    await redisClient.flushall();
  }
}

/** (a) One autocannon run against a fresh route server (lib/orders-route-server.mjs). */
async function measureRoute(kind, round) {
  const name = queueName(`route-${kind}`);
  const target = kind === "pg-boss" ? postgres.url : kind === "bullmq" ? String(redis.port) : undefined;
  try {
    return await measure(kind, target, round, { connections: CONNECTIONS, duration: DURATION_S }, [name]);
  } finally {
    if (kind !== "memory") await dropQueue(kind, name);
  }
}

/**
 * (b, c) Pre-fills a queue with `events` events (backlog.mjs; not timed), then times one worker process through
 * them.
 */
async function measureWorker(engine, round, concurrency, events = EVENTS) {
  const name = queueName(`worker-${engine}-${concurrency}-${events}`);
  const tag = `${round}:${concurrency}:${events}`;
  if (engine === "pg-boss") await fillPgBoss(boss, name, events, tag);
  else await fillBullMq(redis.port, name, events, tag);
  const target = engine === "pg-boss" ? postgres.url : String(redis.port);
  try {
    const { child, match } = await startProcess(
      process.execPath,
      [join(here, "worker-run.mjs"), engine, target, name, String(events), String(concurrency)],
      /done (\d+) ([\d.]+)/,
      workerTimeLimitMs(events) + 30_000,
    );
    await new Promise((resolve) => (child.exitCode === null ? child.once("exit", resolve) : resolve()));
    const ms = Number(match[2]);
    return { eventsPerS: (events / ms) * 1000, ms };
  } finally {
    await dropQueue(engine, name);
  }
}

/** How long worker-run.mjs gives itself for `events` (the same formula). */
function workerTimeLimitMs(events) {
  return 120_000 + events * 2;
}

/** Parts (a) and (b): their section of the fragment. */
async function routesAndWorkers() {
  // (a) Routes.
  for (const kind of ROUTES) await measureRoute(kind, "warmup"); // JIT, loopback and pool warm-up
  const routeRuns = Object.fromEntries(ROUTES.map((kind) => [kind, []]));
  for (let round = 1; round <= ROUTE_ROUNDS; round++) {
    const order = ROUTES.map((_, i) => ROUTES[(i + round) % ROUTES.length]);
    for (const kind of order) {
      const run = await measureRoute(kind, round);
      console.log(`round ${round} ${kind}: ${Math.round(run.rps)} req/s, p50 ${run.p50} ms, p99 ${run.p99} ms`);
      if (run.non2xx > 0 || run.errors > 0)
        throw new Error(`${kind}: ${run.non2xx} non-2xx answers, ${run.errors} errors`);
      routeRuns[kind].push(run);
    }
  }

  // (b) One worker per engine: tuned concurrency (the goal) every round, the default in the first rounds.
  const workerRuns = Object.fromEntries(ENGINES.map((engine) => [engine, { tuned: [], default: [] }]));
  for (let round = 1; round <= WORKER_ROUNDS; round++) {
    for (const engine of round % 2 === 1 ? ENGINES : [...ENGINES].reverse()) {
      const settings = [["tuned", TUNED]];
      if (round <= DEFAULT_ROUNDS) settings.push(["default", DEFAULT_CONCURRENCY]);
      for (const [kind, concurrency] of round % 2 === 1 ? settings : settings.reverse()) {
        const run = await measureWorker(engine, round, concurrency);
        console.log(
          `round ${round} worker ${engine} concurrency ${concurrency}: ${Math.round(run.eventsPerS)} events/s (${EVENTS} in ${Math.round(run.ms)} ms)`,
        );
        workerRuns[engine][kind].push(run);
      }
    }
  }

  const labels = {
    memory: "direct mode, memory store (`MemoryIdempotencyStore`)",
    "pg-boss": "inbox mode, pg-boss (`createPgBossInbox`, pg pool of 10)",
    bullmq: "inbox mode, BullMQ (`createBullMqInbox`, one Redis connection)",
  };
  const routeRows = ROUTES.map((kind) => {
    const runs = routeRuns[kind];
    const total = runs.reduce((sum, r) => sum + r.total, 0);
    const rps = median(runs.map((r) => r.rps));
    return `| ${labels[kind]} | ${Math.round(rps)} | ${median(runs.map((r) => r.p50))} ms | ${median(runs.map((r) => r.p99))} ms | ${total} |`;
  });
  const routeVerdicts = ENGINES.map((engine) => {
    const ratios = routeRuns[engine].map((run, i) => run.rps / routeRuns.memory[i].rps);
    const interval = medianInterval(ratios);
    return { engine, ratios, ratio: median(ratios), interval, result: verdict(interval, ROUTE_GOAL, "at-least") };
  });
  const workerVerdicts = ENGINES.flatMap((engine) =>
    [
      ["tuned", TUNED],
      ["default", DEFAULT_CONCURRENCY],
    ].map(([kind, concurrency]) => {
      const rates = workerRuns[engine][kind].map((run) => run.eventsPerS);
      const interval = medianInterval(rates);
      const result = verdict(interval, WORKER_GOAL, "at-least");
      return { engine, kind, concurrency, rates, rate: median(rates), interval, result };
    }),
  );

  const fragment = `## Durable inbox: webhook route and worker throughput

Both engines of \`@kirimbayar/inbox\` on loopback servers started by the benchmark: pg-boss 10 on PostgreSQL (fsync
off, as the test clusters) and BullMQ on redis-server (no persistence).${quick ? " **Quick mode: one round, not figures to quote.**" : ""}

**(a) Webhook route.** Order-status route on Express 5 with \`@kirimbayar/express\`, token verification, a new event
on every request; in inbox mode the answer comes once the event is written to the queue (no worker runs, the
queue is emptied between runs), in direct mode after the no-op handler ran with the memory store. Autocannon
${CONNECTIONS} connections, ${ROUTE_ROUNDS} round(s) of ${DURATION_S} s per route (the order rotates), a fresh server per run, medians.

| Route | req/s (median) | p50 latency | p99 latency | requests, all 2xx |
| --- | ---: | ---: | ---: | ---: |
${routeRows.join("\n")}

${routeVerdicts
  .map(
    (v) =>
      `Inbox route on ${v.engine} / direct memory route: **${v.ratio.toFixed(2)}x**, interval ${formatInterval(v.interval)} (goal at least ${ROUTE_GOAL.toFixed(2)}x): **${VERDICT_WORDS[v.result]}**. Per round: ${v.ratios.map((r) => r.toFixed(2)).join(", ")}.`,
  )
  .join("\n\n")}

**(b) One worker, end to end.** A queue holding ${EVENTS.toLocaleString("en-US")} order-status events (pg-boss: written in
bulk with the options \`enqueue\` uses; BullMQ: through \`inbox.enqueue\`), then one worker process: \`startInboxWorker\`
with the memory idempotency store and a no-op handler; events per second from the worker's start to the last
handler. Concurrency ${TUNED} (tuned, the goal figure) in each of ${WORKER_ROUNDS} round(s), and startInboxWorker's default
(${DEFAULT_CONCURRENCY}) in the first ${DEFAULT_ROUNDS} for context; engines alternate.

| Engine | concurrency | events/s (median) | per round |
| --- | ---: | ---: | --- |
${workerVerdicts.map((v) => `| ${v.engine} | ${v.concurrency}${v.kind === "default" ? " (default)" : ""} | ${Math.round(v.rate)} | ${v.rates.map((r) => Math.round(r)).join(", ")} |`).join("\n")}

${workerVerdicts
  .map(
    (v) =>
      `One ${v.engine} worker, concurrency ${v.concurrency}${v.kind === "default" ? " (default)" : ""}: **${Math.round(v.rate)} events/s**, interval ${formatInterval(v.interval, 0, " events/s")} ${v.kind === "default" ? "(context only, too few rounds for a verdict: the goal row is the tuned one)" : `(goal at least ${WORKER_GOAL.toLocaleString("en-US")}): **${VERDICT_WORDS[v.result]}**`}.`,
  )
  .join("\n\n")}

${[
  ...routeVerdicts.map((v) =>
    goalComment({
      what: `inbox-mode route on ${v.engine} vs direct memory-store route (req/s)`,
      measured: `${v.ratio.toFixed(2)}x`,
      target: `>= ${ROUTE_GOAL.toFixed(2)}x`,
      result: v.result,
      interval: formatInterval(v.interval),
    }),
  ),
  ...workerVerdicts
    .filter((v) => v.kind === "tuned")
    .map((v) =>
      goalComment({
        what: `one inbox worker on ${v.engine}, concurrency ${v.concurrency}, no-op handler (events/s)`,
        measured: `${Math.round(v.rate)}`,
        target: `>= ${WORKER_GOAL}`,
        result: v.result,
        interval: formatInterval(v.interval, 0, ""),
      }),
    ),
].join("\n")}
`;
  return fragment;
}

const BACKLOG_START = "<!-- section: backlog drain -->";

/**
 * Part (c): in each round every larger backlog is drained once (their order alternating), each between two drains
 * of the reference size (ref, larger, ref, larger, ref): the machine's load moves within minutes, and the short
 * reference drains catch it on both sides of each large one. Returns its section of the fragment.
 */
async function backlogDrain() {
  const [reference, ...larger] = BACKLOG_SIZES;
  const runs = Object.fromEntries(
    ENGINES.map((engine) => [engine, Object.fromEntries(BACKLOG_SIZES.map((n) => [n, []]))]),
  );
  const ratios = Object.fromEntries(ENGINES.map((engine) => [engine, Object.fromEntries(larger.map((n) => [n, []]))]));
  const drain = async (engine, round, events) => {
    const run = await measureWorker(engine, `backlog-${round}-${runs[engine][events].length}`, TUNED, events);
    console.log(
      `backlog round ${round} ${engine} ${events} waiting: ${Math.round(run.eventsPerS)} events/s (${Math.round(run.ms)} ms)`,
    );
    runs[engine][events].push(run);
    return run.eventsPerS;
  };
  for (let round = 1; round <= BACKLOG_ROUNDS; round++) {
    for (const engine of round % 2 === 1 ? ENGINES : [...ENGINES].reverse()) {
      const order = round % 2 === 1 ? larger : [...larger].reverse();
      let before = await drain(engine, round, reference);
      for (const events of order) {
        const rate = await drain(engine, round, events);
        const after = await drain(engine, round, reference);
        ratios[engine][events].push(rate / ((before + after) / 2));
        before = after;
      }
    }
  }
  const verdicts = ENGINES.flatMap((engine) =>
    larger.map((events) => {
      const perRound = ratios[engine][events];
      const interval = medianInterval(perRound);
      return {
        engine,
        events,
        ratios: perRound,
        ratio: median(perRound),
        interval,
        result: verdict(interval, BACKLOG_GOAL, "at-least"),
      };
    }),
  );
  const count = (n) => n.toLocaleString("en-US");
  return `${BACKLOG_START}
**(c) Draining a backlog.** One worker process (\`startInboxWorker\`, concurrency ${TUNED}, memory idempotency store,
no-op handler) through a queue holding ${BACKLOG_SIZES.map(count).join(", ")} events (pg-boss: one \`INSERT ... SELECT
generate_series\` of the rows \`enqueue\` writes; BullMQ: \`inbox.enqueue\`), from the worker's start to the last
handler. In each of ${BACKLOG_ROUNDS} round(s) every larger backlog once (order alternating), each between two drains of
${count(reference)}, its ratio taken to their mean (the machine's load moves within minutes). Goal: the rate with
${larger.map(count).join(" and with ")} waiting at least ${BACKLOG_GOAL}x the rate with ${count(reference)} (median of the per-round ratios).${quick ? " **Quick mode: not figures to quote.**" : ""}

| Engine | waiting | events/s (median) | per round | / ${count(reference)} (median) |
| --- | ---: | ---: | --- | ---: |
${ENGINES.flatMap((engine) =>
  BACKLOG_SIZES.map((events) => {
    const rates = runs[engine][events].map((run) => run.eventsPerS);
    const v = verdicts.find((x) => x.engine === engine && x.events === events);
    return `| ${engine} | ${count(events)} | ${Math.round(median(rates))} | ${rates.map((r) => Math.round(r)).join(", ")} | ${v ? `${v.ratio.toFixed(2)}x` : "1.00x"} |`;
  }),
).join("\n")}

${verdicts
  .map(
    (v) =>
      `${v.engine}, ${count(v.events)} waiting / ${count(reference)}: **${v.ratio.toFixed(2)}x**, interval ${formatInterval(v.interval)} (goal at least ${BACKLOG_GOAL.toFixed(2)}x): **${VERDICT_WORDS[v.result]}**. Per round: ${v.ratios.map((r) => r.toFixed(2)).join(", ")}.`,
  )
  .join("\n\n")}

${verdicts
  .map((v) =>
    goalComment({
      what: `one inbox worker on ${v.engine} draining ${count(v.events)} waiting vs ${count(reference)} (events/s)`,
      measured: `${v.ratio.toFixed(2)}x`,
      target: `>= ${BACKLOG_GOAL.toFixed(2)}x`,
      result: v.result,
      interval: formatInterval(v.interval),
    }),
  )
  .join("\n")}
`;
}

try {
  [postgres, redis] = await Promise.all([startPostgresServer(), startRedisServer()]);
  redisClient = new Redis({ host: "127.0.0.1", port: redis.port });
  boss = new PgBoss({ connectionString: postgres.url, max: 10, schedule: false, supervise: false });
  boss.on("error", () => {});
  await boss.start(); // installs pg-boss's schema for the servers and workers

  const sections = [];
  if (!backlogOnly) sections.push(await routesAndWorkers());
  sections.push(await backlogDrain());
  mkdirSync(join(benchDir, "results"), { recursive: true });
  const path = join(benchDir, "results/inbox.md");
  // A backlog-only run replaces its own section and keeps the figures of the last full run.
  const kept = backlogOnly && existsSync(path) ? readFileSync(path, "utf8").split(BACKLOG_START)[0] : "";
  const fragment = `${kept.trimEnd()}${kept ? "\n\n" : ""}${sections.join("\n")}`;
  writeFileSync(path, fragment);
  console.log(fragment);
} finally {
  await stopAll();
  redisClient?.disconnect();
  await boss?.stop({ graceful: false, wait: true, timeout: 2_000 }).catch(() => {});
  await redis?.stop();
  await postgres?.destroy();
}
