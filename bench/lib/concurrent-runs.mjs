// Concurrent paired runs: a route and its twin served at the same time, each by its own fresh server process, both
// pinned to the same core (lib/cpu-pinning.mjs), each driven by its own autocannon with the same connections. Run
// one after the other, two routes' req/s differ by the machine's minute-to-minute drift as much as by their code
// (a route's req/s moves by 10-30 % between back-to-back runs here); run at once, both meet the same drift, and
// what differs is what each costs. Each server's CPU time is read from /proc around the measured window, so the
// figure is requests per CPU-second of its process: the req/s that route sustains on a core of its own, unmoved
// by how the kernel happened to share the core between the two.
import { readFileSync } from "node:fs";
import { pinnedNode } from "./cpu-pinning.mjs";
import { startProcess, stop } from "./orders-route-load.mjs";
import { loadFigures, postJsonLoad } from "./post-load.mjs";

const TICK_MS = 10; // USER_HZ = 100 on Linux

/** CPU time (user + system, every thread) of one process so far, in ms; undefined where /proc cannot tell. */
export function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

/**
 * The windows of the concurrent benchmarks: each fresh server driven `warmupS` seconds before its `durationS`
 * measured ones, so that V8 has compiled it (in its first seconds a server answers about a third of its settled
 * requests per CPU-second: bench/README.md, "The journal's cost in a warm process"), and the window earlier runs were
 * judged on (`early`: 1 s after the start, 3 s long) measured as context. `quick`: a smoke run's short windows.
 */
export function warmWindows(quick) {
  return quick
    ? { warmupS: 1.5, durationS: 2, early: { afterS: 0.25, durationS: 0.75 } }
    : { warmupS: 10, durationS: 5, early: { afterS: 1, durationS: 3 } };
}

/** `runs` (each route's runs, as runConcurrentRounds gives them) with each run's `early` figures in its place. */
export function earlyRunsOf(runs) {
  return Object.fromEntries(Object.entries(runs).map(([route, list]) => [route, list.map((run) => run.early)]));
}

/** "1-4 s": when the early window of `windows` lies, after the servers' start. */
export function earlyWindowWords(windows) {
  const { afterS, durationS } = windows.early;
  return `${afterS}-${afterS + durationS} s`;
}

/**
 * Serves every route of `routes` at once and drives them alike: `warmupS` seconds unrecorded (JIT, pools), then
 * `durationS` seconds measured. Each route is `{ name, args, body(sequence) }` (`args`: the server's command line
 * after `node`; `body`: the JSON text of request `sequence`, a new event each); `path` is the request path. The
 * sequence runs on from the warm-up into the measured window, so no measured request repeats a warm-up's event.
 * Resolves to each route's `{ rps, p50, p99, non2xx, errors, total, cpuMs, perCpuSecond }`, by name.
 *
 * With `early: { afterS, durationS }`, a window that starts `afterS` seconds into the warm-up is measured too, as
 * each route's `early` figures (what a fresh process does while V8 is still compiling it); the warm-up still lasts
 * `warmupS` seconds in all.
 *
 * @param {{ connections: number, durationS: number, warmupS: number, serverCpus?: string, path: string,
 *   early?: { afterS: number, durationS: number } }} load
 */
export async function runConcurrently(routes, load) {
  const served = await serveConcurrently(routes, load);
  try {
    let warmedS = 0;
    let early;
    if (load.early !== undefined) {
      if (load.early.afterS > 0) await served.drive(load.early.afterS);
      early = await served.measure(load.early.durationS);
      warmedS = load.early.afterS + load.early.durationS;
    }
    if (load.warmupS > warmedS) await served.drive(load.warmupS - warmedS);
    const measured = await served.measure(load.durationS);
    return Object.fromEntries(
      routes.map((route, i) => [route.name, early === undefined ? measured[i] : { ...measured[i], early: early[i] }]),
    );
  } finally {
    await served.stop();
  }
}

/**
 * Starts a fresh server for every route of `routes` (as {@link runConcurrently} takes them) and answers
 * `{ drive(s), measure(s), stop() }`: `drive` loads them all at once for `s` seconds, `measure` does the same and
 * resolves to each route's figures (in `routes`' order); the request sequence of each route runs on from one call to
 * the next. `stop()` stops the servers.
 *
 * @param {{ connections: number, serverCpus?: string, path: string }} load
 */
export async function serveConcurrently(routes, load) {
  const servers = [];
  const stopAll = () => Promise.all(servers.map((server) => stop(server.child)));
  try {
    for (const route of routes) {
      const [command, args] = pinnedNode(route.args, load.serverCpus);
      const { child, match } = await startProcess(command, args, /ready (\d+)/);
      servers.push({ route, child, url: `http://127.0.0.1:${match[1]}`, sent: 0 });
    }
  } catch (error) {
    await stopAll();
    throw error;
  }
  const drive = (duration) =>
    Promise.all(
      servers.map((server) =>
        postJsonLoad({
          url: server.url,
          path: load.path,
          connections: load.connections,
          duration,
          bodyOf: () => server.route.body(++server.sent),
        }),
      ),
    );
  const measure = async (duration) => {
    const before = servers.map((server) => processCpuMs(server.child.pid));
    const results = await drive(duration);
    const after = servers.map((server) => processCpuMs(server.child.pid));
    return results.map((result, i) => {
      const cpuMs = before[i] === undefined || after[i] === undefined ? undefined : after[i] - before[i];
      return {
        ...loadFigures(result),
        cpuMs,
        perCpuSecond: cpuMs ? (result.requests.total * 1000) / cpuMs : undefined,
      };
    });
  };
  return { drive, measure, stop: stopAll };
}

/**
 * `rounds` rounds of concurrent runs (see {@link runConcurrently}): in every round each group's routes are served
 * and driven at once, the groups one after the other (their order rotating, each group's start order flipping, as
 * lib/paired-rounds.mjs does), after one unrecorded run of each group. `routeOf(route, round)` gives a route's
 * `{ args, body }`. Throws on any non-2xx answer or error. Resolves to each route's runs in round order, in the shape
 * lib/paired-rounds.mjs's `routeSummary` and `pairedRatio` read.
 */
export async function runConcurrentRounds(groups, rounds, routeOf, load) {
  const run = async (group, round) => {
    const routes = group.map((name) => ({ name, ...routeOf(name, round) }));
    const results = await runConcurrently(routes, load);
    for (const name of group) {
      for (const r of [results[name], results[name].early]) {
        if (r !== undefined && (r.non2xx > 0 || r.errors > 0)) {
          throw new Error(`${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
        }
      }
    }
    return results;
  };
  for (const group of groups) await run(group, "warmup");
  const runs = Object.fromEntries(groups.flat().map((route) => [route, []]));
  for (let round = 1; round <= rounds; round++) {
    const order = groups.map((_, i) => groups[(i + round) % groups.length]);
    for (const group of order) {
      const results = await run(round % 2 === 0 ? [...group].reverse() : group, round);
      console.log(
        `round ${round}: ${group.map((name) => `${name} ${Math.round(results[name].rps)} req/s, ${Math.round(results[name].perCpuSecond ?? 0)} per CPU-s`).join("; ")}`,
      );
      for (const name of group) runs[name].push(results[name]);
    }
  }
  return runs;
}
