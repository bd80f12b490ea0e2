// The trace section: 1,000 checkouts over the Zipf trace against the fake over HTTP, one courier answering in 3 s and
// one failing, replayed through the rate quoter and through the baselines; latency, coverage and provider calls.
import { ShippingClient } from "@kirimbayar/core";
import { createRateQuoter } from "@kirimbayar/core/quoter";
import { countingFetch, quantile, replay, routes, startFake, warmupRoutes, zipfTrace } from "./trace.mjs";

export const COURIERS = ["jne", "sicepat", "jnt", "pos", "anteraja"];
export const SLOW = "sicepat";
export const FAILING = "jnt";
export const HEALTHY = COURIERS.filter((c) => c !== SLOW && c !== FAILING);
export const FAULTS = { [SLOW]: { delayMs: 3_000 }, [FAILING]: { status: 503 } };
const WEIGHT = 1_000;

/** What one replay of the trace gave. */
function summarise(name, results, calls, healthyPriced) {
  const latencies = results.map((r) => r.ms);
  const errors = results.filter((r) => r.error !== undefined).length;
  return {
    name,
    checkouts: results.length,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: Math.max(...latencies),
    errors,
    calls,
    healthyCoverage: healthyPriced / results.length,
  };
}

/** Every healthy courier has a real price (the provider's, fresh or cached) in this quote. */
const healthyPricedIn = (quote) =>
  HEALTHY.every((courier) => quote.rates.some((r) => r.courier === courier && r.source !== "backup"));

async function quoterRun(name, fake, trace, list, perSecond, options) {
  const counting = countingFetch();
  const client = new ShippingClient({ apiKey: fake.key, baseUrl: fake.url, fetch: counting.fetch });
  const quoter = createRateQuoter({ client, couriers: COURIERS, ...options });
  const results = await replay(trace, perSecond, (index) => {
    const { origin, destination } = list[index];
    return quoter.quote({ origin, destination, weight: WEIGHT });
  });
  // Late answers (the slow courier) may still be on their way: they are part of the run's calls, not of its latency.
  await new Promise((resolve) => setTimeout(resolve, 3_500));
  const priced = results.filter((r) => r.value !== undefined && healthyPricedIn(r.value)).length;
  const summary = summarise(name, results, counting.calls.length, priced);
  summary.stats = quoter.stats().total;
  summary.slowCoverage = results.filter((r) => r.value?.rates.some((x) => x.courier === SLOW)).length / results.length;
  return summary;
}

// What a shop writes by hand (the "Promise.race against a timer"): each courier asked on its own, no cache,
// the checkout answered with what arrived within the budget. 5 calls per checkout: the uncached baseline of the quota.
async function handRolledRun(fake, trace, list, perSecond) {
  const counting = countingFetch();
  const client = new ShippingClient({ apiKey: fake.key, baseUrl: fake.url, fetch: counting.fetch, maxRetries: 0 });
  const results = await replay(trace, perSecond, async (index) => {
    const { origin, destination } = list[index];
    const priced = new Set();
    const calls = COURIERS.map((courier) =>
      client.calculateDomesticCost({ origin, destination, weight: WEIGHT, courier }).then(
        () => priced.add(courier),
        () => {},
      ),
    );
    await Promise.race([Promise.all(calls), new Promise((resolve) => setTimeout(resolve, 800))]);
    return new Set(priced);
  });
  await new Promise((resolve) => setTimeout(resolve, 3_500));
  const priced = results.filter((r) => HEALTHY.every((c) => r.value?.has(c))).length;
  const summary = summarise(
    "hand-rolled: each courier alone, raced against 800 ms, no cache",
    results,
    counting.calls.length,
    priced,
  );
  summary.slowCoverage = results.filter((r) => r.value?.has(SLOW)).length / results.length;
  return summary;
}

/**
 * Warms the process up (undici loaded, the quoter's and the client's code compiled, connections open) on routes that
 * are not in the trace, through a quoter of its own: the measured quoter starts with an empty cache and no courier
 * marked, only the process is warm.
 */
async function warmUp(fake, perSecond) {
  const client = new ShippingClient({ apiKey: fake.key, baseUrl: fake.url });
  const quoter = createRateQuoter({ client, couriers: COURIERS, budgetMs: 800 });
  const warm = warmupRoutes();
  const trace = Array.from({ length: Math.min(100, 2 * perSecond) }, (_, i) => i % warm.length);
  await replay(trace, perSecond, async (index) => {
    await quoter.quote({ ...warm[index], weight: WEIGHT });
    await client.calculateDomesticCost({ ...warm[index], weight: WEIGHT, courier: HEALTHY }).catch(() => {});
  });
}

async function plainRun(fake, trace, list, perSecond) {
  const counting = countingFetch();
  // What a shop's checkout does without the quoter: one call for every courier, the client's defaults (30 s
  // timeout per attempt, reads retried twice after a 5xx).
  const client = new ShippingClient({ apiKey: fake.key, baseUrl: fake.url, fetch: counting.fetch });
  const results = await replay(trace, perSecond, async (index) => {
    const { origin, destination } = list[index];
    return client.calculateDomesticCost({ origin, destination, weight: WEIGHT, courier: COURIERS });
  });
  const priced = results.filter((r) => r.value !== undefined).length;
  return summarise("plain multi-courier call", results, counting.calls.length, priced);
}

/**
 * Replays the trace (`checkouts` of them, `perSecond`) through: the quoter with its defaults (budget 800 ms, memory
 * cache, batching); the plain multi-courier call; the hand-rolled per-courier race (no cache: the quota's uncached
 * baseline); and the quoter with its cache off (context: what the cache alone saves). A fresh fake provider for each,
 * its process warmed up first; the order of the contenders rotates with `round`.
 */
export async function tailSection({ checkouts, perSecond, zipf, seed }, round = 0) {
  const list = routes(200);
  const trace = zipfTrace(checkouts, list.length, zipf, seed);
  const distinct = new Set(trace).size;
  const contenders = [
    [
      "quoter (cached, defaults)",
      (fake) => quoterRun("quoter (cached, defaults)", fake, trace, list, perSecond, { budgetMs: 800 }),
    ],
    ["plain multi-courier call", (fake) => plainRun(fake, trace, list, perSecond)],
    ["hand-rolled per-courier race", (fake) => handRolledRun(fake, trace, list, perSecond)],
    [
      "uncached quoter",
      (fake) => quoterRun("uncached quoter", fake, trace, list, perSecond, { budgetMs: 800, cache: false }),
    ],
  ];
  const runs = [];
  for (let i = 0; i < contenders.length; i++) {
    const [name, run] = contenders[(round + i) % contenders.length];
    const fake = await startFake(FAULTS);
    try {
      await warmUp(fake, perSecond);
      const summary = await run(fake);
      summary.key = name;
      console.log(
        `${name}: p50 ${summary.p50.toFixed(0)} ms, p99 ${summary.p99.toFixed(0)} ms, healthy couriers priced in ${(summary.healthyCoverage * 100).toFixed(1)} %, ${summary.calls} provider calls, ${summary.errors} errors`,
      );
      runs.push(summary);
    } finally {
      await fake.stop();
    }
  }
  return { runs, distinct, checkouts, perSecond, zipf };
}
