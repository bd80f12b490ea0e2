#!/usr/bin/env node
// Where a journal's cost goes: CPU time per request of the webhook server, of PostgreSQL's processes, of
// redis-server and of the load generator, with the journal on and off (read from /proc around each autocannon run).
// A diagnostic beside run.mjs, not a goal: it shows which process the journal made busier, the database's work
// included (run.mjs counts only the servers'). Linux only.
//   node bench/journal-overhead/cpu.mjs [route ...] (default: every store, on and off), KIRIMBAYAR_BENCH_REPEAT=3
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { processCpuMs } from "../lib/concurrent-runs.mjs";
import { pinnedNode, pinRunnerAwayFromServer } from "../lib/cpu-pinning.mjs";
import { startProcess, stop } from "../lib/orders-route-load.mjs";
import { ORDERS_ROUTE_TOKEN } from "../lib/orders-route-token.mjs";
import { newOrderEvents, postJsonLoad } from "../lib/post-load.mjs";
import { startJournalDatabases } from "./databases.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const REPEAT = Math.min(20, Math.max(1, Number(process.env.KIRIMBAYAR_BENCH_REPEAT ?? 3) || 3));
const DEFAULT_ROUTES = ["memory", "memory-journal", "postgres", "postgres-journal", "redis", "redis-journal"];
const routes = process.argv.length > 2 ? process.argv.slice(2) : DEFAULT_ROUTES;

/** Summed CPU ms of every live process whose command name is `name`. */
function cpuOfAll(name) {
  let sum = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === name) sum += processCpuMs(pid) ?? 0;
    } catch {}
  }
  return sum;
}

const serverCpus = pinRunnerAwayFromServer();
const databases = await startJournalDatabases();
try {
  console.log("| route | req/s | server µs/req | postgres µs/req | redis µs/req | autocannon µs/req |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
  for (let rep = 0; rep < REPEAT; rep++) {
    for (const route of routes) {
      const [command, args] = pinnedNode([join(here, "server.mjs"), route, ...databases.targetOf(route)], serverCpus);
      const { child, match } = await startProcess(command, args, /ready (\d+)/);
      try {
        const cpu = () => ({
          server: processCpuMs(child.pid) ?? 0,
          pg: cpuOfAll("postgres"),
          redis: cpuOfAll("redis-server"),
        });
        const before = { ...cpu(), self: process.cpuUsage() };
        const result = await postJsonLoad({
          url: `http://127.0.0.1:${match[1]}`,
          path: `/webhooks/orders?token=${ORDERS_ROUTE_TOKEN}`,
          connections: 50,
          duration: 4,
          bodyOf: newOrderEvents(route, `cpu${rep}`),
        });
        const after = cpu();
        const self = process.cpuUsage(before.self);
        const perRequest = (ms) => ((ms * 1000) / result.requests.total).toFixed(1);
        console.log(
          `| ${route} | ${Math.round(result.requests.average)} | ${perRequest(after.server - before.server)} | ${perRequest(after.pg - before.pg)} | ${perRequest(after.redis - before.redis)} | ${perRequest((self.user + self.system) / 1000)} |`,
        );
      } finally {
        await stop(child);
      }
    }
  }
} finally {
  await databases.stop();
}
