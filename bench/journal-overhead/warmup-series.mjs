#!/usr/bin/env node
// How long a fresh webhook server takes to settle: two routes served at once on one pinned core (as run.mjs serves a
// pair), driven without a pause, their requests per CPU-second printed for each consecutive window since the start.
// A diagnostic beside run.mjs, not a goal: it shows why run.mjs warms each pair up for 10 s before measuring (in the
// first seconds V8's helper threads are still compiling the server, and a route with more code has more to compile).
// Memory routes only (no database). Linux only.
//   node bench/journal-overhead/warmup-series.mjs [routeA routeB] (default: memory memory-journal)
//   KIRIMBAYAR_BENCH_WINDOWS=12 (windows of 3 s, at most 40)
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serveConcurrently } from "../lib/concurrent-runs.mjs";
import { pinRunnerAwayFromServer } from "../lib/cpu-pinning.mjs";
import { ORDERS_ROUTE_TOKEN } from "../lib/orders-route-token.mjs";
import { newOrderEvents } from "../lib/post-load.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const WINDOW_S = 3;
const WINDOWS = Math.min(40, Math.max(1, Number(process.env.KIRIMBAYAR_BENCH_WINDOWS ?? 12) || 12));
const routes = process.argv.length > 3 ? process.argv.slice(2, 4) : ["memory", "memory-journal"];
if (!routes.every((route) => route.startsWith("memory"))) throw new Error("warmup-series serves memory routes only");

const serverCpus = pinRunnerAwayFromServer();
const served = await serveConcurrently(
  routes.map((route, i) => ({
    name: route,
    args: [join(here, "server.mjs"), route],
    body: newOrderEvents(`${route}-${i}`, "series"),
  })),
  { connections: 50, serverCpus, path: `/webhooks/orders?token=${ORDERS_ROUTE_TOKEN}` },
);
try {
  console.log(`| since start | ${routes.map((route) => `${route} (requests per CPU-second)`).join(" | ")} | ratio |`);
  console.log(`| --- | ${routes.map(() => "---:").join(" | ")} | ---: |`);
  for (let window = 0; window < WINDOWS; window++) {
    const perCpu = (await served.measure(WINDOW_S)).map((figures) => figures.perCpuSecond ?? Number.NaN);
    const ratio = perCpu.length === 2 ? (perCpu[1] / perCpu[0]).toFixed(2) : "";
    const from = window * WINDOW_S;
    console.log(
      `| ${from}-${from + WINDOW_S} s | ${perCpu.map((value) => Math.round(value)).join(" | ")} | ${ratio} |`,
    );
  }
} finally {
  await served.stop();
}
