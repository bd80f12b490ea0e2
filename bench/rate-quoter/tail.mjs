// The trace section: 1,000 checkouts over the Zipf trace against the fake over HTTP, one courier answering in 3 s and
// one failing, replayed through the rate quoter and through the baselines; latency, coverage and provider calls.
import { ShippingClient } from "@kirimbayar/core";
import { createRateQuoter } from "@kirimbayar/core/quoter";
import { countingFetch, quantile, replay, routes, startFake, zipfTrace } from "./trace.mjs";

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
 * cache, batching); the plain multi-courier call; uncached pricing of every courier on its own (the quoter with no
 * cache, no batching, no cooldown: 5 calls per checkout); and the quoter uncached but otherwise with its defaults.
 * A fresh fake provider for each, so no run inherits another's state.
 */
export async function tailSection({ checkouts, perSecond, zipf, seed }) {
  const list = routes(200);
  const trace = zipfTrace(checkouts, list.length, zipf, seed);
  const distinct = new Set(trace).size;
  const runs = [];
  const contenders = [
    ["quoter (cached, defaults)", (fake) => quoterRun("quoter (cached, defaults)", fake, trace, list, perSecond, { budgetMs: 800 })],
    ["plain multi-courier call", (fake) => plainRun(fake, trace, list, perSecond)],
    [
      "uncached, each courier alone",
      (fake) =>
        quoterRun("uncached, each courier alone", fake, trace, list, perSecond, {
          budgetMs: 800,
          cache: false,
          batching: false,
          failureCooldownMs: 0,
        }),
    ],
    [
      "uncached quoter, batching and cooldown on",
      (fake) => quoterRun("uncached quoter, batching and cooldown on", fake, trace, list, perSecond, { budgetMs: 800, cache: false }),
    ],
  ];
  for (const [name, run] of contenders) {
    const fake = await startFake(FAULTS);
    try {
      const summary = await run(fake);
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
