// Gives the webhook server under test a core of its own. On these two-core machines the load generator (autocannon in
// the runner) and the databases otherwise take turns on the server's core, and a route's req/s moves with whichever
// of them is busiest (±20 % from one run to the next). In production the shop's database runs on its own host: a
// route compared with its twin over the same database should be judged on the app's own core. So the runner, and the
// databases and load it starts, keep to the other cores, and the server runs alone on the last one.
// KIRIMBAYAR_BENCH_PIN=0 turns it off; machines with one core or without `taskset` run unpinned.
import { execFileSync } from "node:child_process";
import { cpus } from "node:os";

/**
 * Pins this process (every thread, and so every process it starts from now on) to all cores but the last, and
 * answers the core list the server should run on (for `taskset -c`), or `undefined` when pinning is off or
 * unavailable. Call it before starting the databases.
 */
export function pinRunnerAwayFromServer() {
  const count = cpus().length;
  if (process.env.KIRIMBAYAR_BENCH_PIN === "0" || count < 2 || process.platform !== "linux") return undefined;
  const others = count === 2 ? "0" : `0-${count - 2}`;
  try {
    execFileSync("taskset", ["-a", "-p", "-c", others, String(process.pid)], { stdio: "ignore" });
  } catch {
    return undefined; // no taskset: run unpinned, as before
  }
  return String(count - 1);
}

/** The command and arguments that run `args` with Node on `serverCpus` (or unpinned when it is `undefined`). */
export function pinnedNode(args, serverCpus) {
  return serverCpus === undefined
    ? [process.execPath, args]
    : ["taskset", ["-c", serverCpus, process.execPath, ...args]];
}

/** How a benchmark's prose describes the pinning it ran with. */
export function pinningWords(serverCpus) {
  return serverCpus === undefined
    ? "every process shares every core"
    : `the servers under test pinned to core ${serverCpus}, the load generator and the databases to the other core(s) (bench/lib/cpu-pinning.mjs)`;
}
