#!/usr/bin/env node
// What building a webhook receiver costs a host app's test suite, which builds one per test: time per
// `createWebhookReceiver` with the default memory store and a token verifier, and the heap each one keeps while
// held. Goals (issue 15): at most 50 µs and at most 50 KB per receiver. For context, the same run measures a bare
// `new LRUCache({ max: 10_000 })`, the store engine as it was configured before (it allocated its arrays for every
// entry up front). Rounds of N receivers held in an array; medians of the rounds with intervals (bench/lib/stats.mjs).
// Writes bench/results/receiver-construction.md.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createWebhookReceiver, tokenVerifier } from "@kirimbayar/core/webhooks";
import { LRUCache } from "lru-cache";
import { formatInterval, goalComment, median, medianInterval, VERDICT_WORDS, verdict } from "../lib/stats.mjs";

// Retained heap needs a forced collection: run again under --expose-gc when started without it.
if (typeof globalThis.gc !== "function") {
  const child = spawnSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
    timeout: 120_000,
  });
  process.exit(child.status ?? 1);
}

const quick = process.env.KIRIMBAYAR_BENCH_QUICK === "1";
const ROUNDS = quick ? 4 : 15;
const PER_ROUND = quick ? 100 : 400;
const TIME_GOAL_US = 50;
const HEAP_GOAL_KB = 50;

/** Builds `count` values with `make`, held until measured; µs per build and retained KB per value. */
function measure(make, count) {
  globalThis.gc();
  const before = process.memoryUsage().heapUsed;
  const held = new Array(count);
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) held[i] = make(i);
  const elapsedUs = Number(process.hrtime.bigint() - started) / 1_000 / count;
  globalThis.gc();
  const retainedKb = (process.memoryUsage().heapUsed - before) / 1024 / count;
  if (held.length !== count) throw new Error("lost a value");
  return { us: elapsedUs, kb: retainedKb };
}

const buildReceiver = (i) =>
  createWebhookReceiver({ source: "qris", verify: [tokenVerifier({ secrets: `bench-token-${i}`, in: "query" })] });
const buildPreallocatedCache = () => new LRUCache({ max: 10_000 });

// Warm-up: the first builds pay for module initialisation and JIT.
measure(buildReceiver, 200);
measure(buildPreallocatedCache, 20);

const receivers = [];
const caches = [];
for (let round = 0; round < ROUNDS; round++) {
  receivers.push(measure(buildReceiver, PER_ROUND));
  caches.push(measure(buildPreallocatedCache, Math.max(20, PER_ROUND / 10)));
}

const time = receivers.map((r) => r.us);
const heap = receivers.map((r) => r.kb);
const timeInterval = medianInterval(time);
const heapInterval = medianInterval(heap);
const timeResult = verdict(timeInterval, TIME_GOAL_US, "at-most");
const heapResult = verdict(heapInterval, HEAP_GOAL_KB, "at-most");

const fragment = `## Building a webhook receiver

\`createWebhookReceiver({ source: "qris", verify: [tokenVerifier(...)] })\` with the default \`MemoryIdempotencyStore\`,
built from core's dist; ${ROUNDS} rounds of ${PER_ROUND} receivers held in an array (heap measured after a forced
collection, before and after each round), after a warm-up.

| Built | Per build (median) | Interval | Retained heap each (median) | Interval |
| --- | ---: | ---: | ---: | ---: |
| receiver + token verifier + default memory store | ${median(time).toFixed(1)} µs | ${formatInterval(timeInterval, 1, " µs")} | ${median(heap).toFixed(1)} KB | ${formatInterval(heapInterval, 1, " KB")} |
| context: \`new LRUCache({ max: 10_000 })\` (the store's engine as configured before) | ${median(caches.map((c) => c.us)).toFixed(1)} µs | – | ${median(caches.map((c) => c.kb)).toFixed(1)} KB | – |

Goals: at most ${TIME_GOAL_US} µs per receiver (**${VERDICT_WORDS[timeResult]}**) and at most ${HEAP_GOAL_KB} KB retained
(**${VERDICT_WORDS[heapResult]}**).

${goalComment({ what: "building a receiver with the default store (time)", measured: `${median(time).toFixed(1)} µs`, target: `<= ${TIME_GOAL_US} µs`, result: timeResult, interval: formatInterval(timeInterval, 1, " µs") })}
${goalComment({ what: "building a receiver with the default store (retained heap)", measured: `${median(heap).toFixed(1)} KB`, target: `<= ${HEAP_GOAL_KB} KB`, result: heapResult, interval: formatInterval(heapInterval, 1, " KB") })}
`;

const resultsDir = join(dirname(dirname(fileURLToPath(import.meta.url))), "results");
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, "receiver-construction.md"), fragment);
console.log(fragment);
