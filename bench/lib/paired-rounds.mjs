// Paired rounds for benchmarks that compare routes in groups (a library's route beside its hand-rolled twin, and
// perhaps a third route a context figure is taken against): in every round each group's routes run back to back, so
// minute-to-minute drift of the shared machine hits them alike. The groups' order rotates and each group's route order
// flips from one round to the next, so neither route of a pair always runs first (on a warmer or a busier machine).
import { median, medianInterval, verdict } from "./stats.mjs";

/**
 * The order of the routes in round `round` (1-based): the groups rotated by `round`, each reversed in even rounds.
 *
 * @example
 * roundOrder([["a", "b"], ["c", "d"]], 1) // ["c", "d", "a", "b"]
 */
export function roundOrder(groups, round) {
  const rotated = groups.map((_, i) => groups[(i + round) % groups.length]);
  return rotated.flatMap((group) => (round % 2 === 0 ? [...group].reverse() : group));
}

/**
 * Runs `rounds` rounds of every route of `groups` with `measure(route, round)` (resolving to `{ rps, p50, p99,
 * non2xx, errors, total }`), after one unrecorded warm-up run of each; throws on any non-2xx answer or error.
 * Resolves to each route's runs, in round order.
 */
export async function runPairedRounds(groups, rounds, measure) {
  const routes = groups.flat();
  for (const route of routes) await measure(route, "warmup"); // JIT, loopback and pool warm-up
  const runs = Object.fromEntries(routes.map((route) => [route, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const route of roundOrder(groups, round)) {
      const run = await measure(route, round);
      console.log(`round ${round} ${route}: ${Math.round(run.rps)} req/s, p50 ${run.p50} ms, p99 ${run.p99} ms`);
      if (run.non2xx > 0 || run.errors > 0) {
        throw new Error(`${route}: ${run.non2xx} non-2xx answers, ${run.errors} errors`);
      }
      runs[route].push(run);
    }
  }
  return runs;
}

/** Medians of one route's runs, and its request count over all rounds. */
export function routeSummary(runs) {
  const perCpu = runs.map((r) => r.perCpuSecond).filter((value) => value !== undefined);
  return {
    rps: median(runs.map((r) => r.rps)),
    ...(perCpu.length === 0 ? {} : { perCpuSecond: median(perCpu) }),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    total: runs.reduce((sum, r) => sum + r.total, 0),
  };
}

/**
 * The per-round ratios of `route` to `baseline` (of req/s, or of another figure of each run: `metric`, e.g.
 * `perCpuSecond` from lib/concurrent-runs.mjs), their median and its confidence interval, and, given a `goal` (at
 * least), the verdict.
 */
export function pairedRatio(runs, route, baseline, goal, metric = "rps") {
  const ratios = runs[route].map((run, i) => run[metric] / runs[baseline][i][metric]);
  const interval = medianInterval(ratios);
  return {
    ratios,
    ratio: median(ratios),
    interval,
    ...(goal === undefined ? {} : { goal, result: verdict(interval, goal, "at-least") }),
  };
}

/**
 * `measure` that tries again (after `waitMs`, at most `attempts` times in all) when a route's server fails to start:
 * on a machine shared with other work, the packages it imports can be rebuilt under it (a `dist` briefly missing).
 * Load runs that started are never repeated.
 */
export function retryingStart(measure, attempts = 12, waitMs = 15_000) {
  return async (route, round) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await measure(route, round);
      } catch (error) {
        const notStarted = /before it was ready|did not start/.test(String(error?.message));
        if (!notStarted || attempt >= attempts) throw error;
        console.log(`${route}: its server did not start (${error.message}); trying again in ${waitMs / 1000} s`);
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
  };
}
