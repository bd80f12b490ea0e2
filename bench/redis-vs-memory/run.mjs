#!/usr/bin/env node
// The order-status webhook route with the Redis idempotency store versus the same route with the in-memory store:
// Express 5 + @kirimbayar/express, token verification, a unique event per request (so every request claims and
// completes a key: two Redis round trips), autocannon with 50 connections on loopback. Each round measures both
// stores back to back (which goes first alternates), so drift hits both alike; the goal figure is the median of the
// per-round Redis / memory ratios, with a confidence interval from the rounds. Goal: Redis at least 0.70x memory.
// Starts its own redis-server (--save '' --appendonly no) on a free loopback port and stops it at the end.
// Writes bench/results/redis-vs-memory.md.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startRedisServer } from "@kirimbayar/test-redis-server";
import { measure as measureRoute, stopAll } from "../lib/orders-route-load.mjs";
import { formatInterval, goalComment, median, medianInterval, VERDICT_WORDS, verdict } from "../lib/stats.mjs";

const GOAL = 0.7;
const quick = process.env.KIRIMBAYAR_BENCH_QUICK === "1";
const DURATION_S = quick ? 2 : 3;
const ROUNDS = quick ? 1 : 8;
const CONNECTIONS = 50;
const here = dirname(fileURLToPath(import.meta.url));
const benchDir = dirname(here);
const measure = (store, port, round) =>
  measureRoute(store, store === "redis" ? port : undefined, round, { connections: CONNECTIONS, duration: DURATION_S });

let redis;
try {
  redis = await startRedisServer();
  await measure("memory", redis.port, "warmup"); // JIT and loopback warm-up, not reported
  const runs = { memory: [], redis: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const store of round % 2 === 1 ? ["memory", "redis"] : ["redis", "memory"]) {
      const run = await measure(store, redis.port, round);
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
  const memory = summary("memory");
  const withRedis = summary("redis");
  const ratios = runs.redis.map((run, i) => run.rps / runs.memory[i].rps);
  const ratio = median(ratios);
  const interval = medianInterval(ratios);
  const result = verdict(interval, GOAL, "at-least");
  const fragment = `## Redis idempotency store vs memory store

Order-status webhook route on Express 5 with \`@kirimbayar/express\`, token verification, a new event on every request
(each claims and completes a fresh key), autocannon ${CONNECTIONS} connections, ${ROUNDS} round(s) of ${DURATION_S} s per store
(which store goes first alternates), a fresh server per run, medians. Redis 7 on loopback (\`RedisIdempotencyStore\` over
ioredis), started by the benchmark. The goal figure is the median of the per-round Redis / memory ratios, with a
confidence interval for it from the rounds (bench/lib/stats.mjs).

| Store | req/s (median) | p50 latency | p99 latency | requests, all 2xx |
| --- | ---: | ---: | ---: | ---: |
| memory (\`MemoryIdempotencyStore\`) | ${Math.round(memory.rps)} | ${memory.p50} ms | ${memory.p99} ms | ${memory.total} |
| Redis (\`RedisIdempotencyStore\`) | ${Math.round(withRedis.rps)} | ${withRedis.p50} ms | ${withRedis.p99} ms | ${withRedis.total} |

Redis / memory: **${ratio.toFixed(2)}x**, interval ${formatInterval(interval)} (goal at least ${GOAL.toFixed(2)}x): **${VERDICT_WORDS[result]}**.
Per round: ${ratios.map((r) => r.toFixed(2)).join(", ")}.

${goalComment({ what: "Redis-store route vs memory-store route (req/s)", measured: `${ratio.toFixed(2)}x`, target: `>= ${GOAL.toFixed(2)}x`, result, interval: formatInterval(interval) })}
`;
  mkdirSync(join(benchDir, "results"), { recursive: true });
  writeFileSync(join(benchDir, "results/redis-vs-memory.md"), fragment);
  console.log(fragment);
} finally {
  await stopAll();
  await redis?.stop();
}
