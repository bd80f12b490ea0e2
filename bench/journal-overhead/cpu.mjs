#!/usr/bin/env node
// Where a journal's cost goes: CPU time per request of the webhook server, of PostgreSQL's processes, of
// redis-server and of the load generator, with the journal on and off (read from /proc around each autocannon run).
// A diagnostic beside run.mjs, not a goal: req/s on two shared cores moves with whichever process is busiest, CPU
// per request shows which one the journal made busier. Linux only.
//   node bench/journal-overhead/cpu.mjs [route ...] (default: every store, on and off), KIRIMBAYAR_BENCH_REPEAT=3
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPostgresServer } from "@kirimbayar/test-postgres-server";
import { startRedisServer } from "@kirimbayar/test-redis-server";
import autocannon from "autocannon";
import pg from "pg";
import { pinnedNode, pinRunnerAwayFromServer } from "../lib/cpu-pinning.mjs";
import { startProcess, stop } from "../lib/orders-route-load.mjs";
import { ORDERS_ROUTE_TOKEN } from "../lib/orders-route-token.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const TICK_US = 10_000; // USER_HZ 100
const REPEAT = Number(process.env.KIRIMBAYAR_BENCH_REPEAT ?? 3);
const routes =
  process.argv.slice(2).length > 0
    ? process.argv.slice(2)
    : ["memory", "memory-journal", "postgres", "postgres-journal", "redis", "redis-journal"];

/** utime + stime of one process, in µs (0 once it is gone). */
function cpuOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_US;
  } catch {
    return 0;
  }
}

/** Summed CPU µs of every live process whose command name is `name`. */
function cpuOfAll(name) {
  let sum = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === name) sum += cpuOf(pid);
    } catch {}
  }
  return sum;
}

const serverCpus = pinRunnerAwayFromServer();
const postgres = await startPostgresServer();
const redis = await startRedisServer();
try {
  const setup = new pg.Client({ connectionString: postgres.url });
  await setup.connect();
  const { PostgresDeliveryJournal, PostgresIdempotencyStore } = await import("@kirimbayar/core/postgres");
  for (const kind of ["postgres", "postgres_transactional"]) {
    await new PostgresIdempotencyStore({ client: setup, table: `bench_journal_idempotency_${kind}` }).ensureSchema();
  }
  await new PostgresDeliveryJournal({ client: setup, table: "bench_delivery_journal" }).ensureSchema();
  await setup.end();
  const targetOf = (route) =>
    route.startsWith("memory") ? [] : route.startsWith("redis") ? [String(redis.port)] : [postgres.url];
  console.log("| route | req/s | server µs/req | postgres µs/req | redis µs/req | autocannon µs/req |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
  for (let rep = 0; rep < REPEAT; rep++) {
    for (const route of routes) {
      const [command, args] = pinnedNode([join(here, "server.mjs"), route, ...targetOf(route)], serverCpus);
      const { child, match } = await startProcess(command, args, /ready (\d+)/);
      let sequence = 0;
      const before = {
        server: cpuOf(child.pid),
        pg: cpuOfAll("postgres"),
        redis: cpuOfAll("redis-server"),
        self: process.cpuUsage(),
      };
      const result = await autocannon({
        url: `http://127.0.0.1:${match[1]}`,
        connections: 50,
        duration: 4,
        requests: [
          {
            method: "POST",
            path: `/webhooks/orders?token=${ORDERS_ROUTE_TOKEN}`,
            headers: { "content-type": "application/json" },
            setupRequest: (request) => {
              sequence += 1;
              request.body = JSON.stringify({
                order_no: `ORD-${route}-${rep}-${sequence}`,
                cnote: `JP${sequence}`,
                status: "Dikirim",
              });
              return request;
            },
          },
        ],
      });
      const self = process.cpuUsage(before.self);
      const n = result.requests.total;
      const per = (us) => (us / n).toFixed(1);
      console.log(
        `| ${route} | ${Math.round(result.requests.average)} | ${per(cpuOf(child.pid) - before.server)} | ${per(cpuOfAll("postgres") - before.pg)} | ${per(cpuOfAll("redis-server") - before.redis)} | ${per(self.user + self.system)} |`,
      );
      await stop(child);
    }
  }
} finally {
  await redis.stop();
  await postgres.destroy();
}
