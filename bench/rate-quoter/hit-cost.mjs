// The cost of a quote served from the cache, against the least a hand-written cache does for the same answer:
// memory, the quoter against a lru-cache get of the same entry (the route's answers by courier) plus the answer's
// assembly; Redis on loopback, the quoter against a hand-rolled GET + JSON.parse. Sequential awaited calls in batches, both sides every round (which
// goes first alternates), per-round ratio of the mean call times.
import { ShippingClient } from "@kirimbayar/core";
import { createRateQuoter } from "@kirimbayar/core/quoter";
import { redisRateStore } from "@kirimbayar/core/quoter/redis";
import { createFakeProvider } from "@kirimbayar/testing";
import { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import { median } from "../lib/stats.mjs";

const COURIERS = ["jne", "sicepat", "jnt", "pos", "anteraja"];
const ROUTE = { origin: 1_520_101, destination: 230_201, weight: 1_000 };
// The shape of the quoter's route keys: an account digest, the operation's code, the route, the weight.
const ACCOUNT = "0123456789abcdef cd";
const FRESH_MS = 15 * 60_000;

/** Mean wall time and CPU time (this process) of one call over `count` sequential calls, in microseconds. */
async function perCall(call, count) {
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await call();
  const wall = Number(process.hrtime.bigint() - started) / 1_000 / count;
  const cpu = process.cpuUsage(cpuBefore);
  return { wall, cpu: (cpu.user + cpu.system) / count };
}

/** Runs every side `rounds` times, `count` calls each, rotating which goes first; per-round times per side. */
async function paired(sides, rounds, count, warmup) {
  const names = Object.keys(sides);
  for (const name of names) await perCall(sides[name], warmup);
  const times = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length];
      times[name].push(await perCall(sides[name], count));
    }
  }
  return times;
}

const ratiosOf = (times, side, baseline, metric) => times[side].map((t, i) => t[metric] / times[baseline][i][metric]);

// A quote's answer assembled from cached entries: what the quoter hands out on a hit.
function assemble(entries) {
  const rates = [];
  for (let i = 0; i < COURIERS.length; i++) {
    const entry = entries[i];
    rates.push({
      courier: COURIERS[i],
      options: entry.options,
      source: "cache",
      fetchedAt: entry.fetchedAt,
      stale: false,
    });
  }
  return { rates, missing: [], complete: true };
}

function checkSame(ours, theirs) {
  const view = (quote) => JSON.stringify(quote.rates.map((r) => [r.courier, r.options.map((o) => o.cost)]));
  if (view(ours) !== view(theirs)) throw new Error("the quoter and the hand-written cache disagree");
}

export async function memoryHitCost({ rounds, count }) {
  const provider = createFakeProvider({ rateLimit: false, recordRequests: false });
  const client = new ShippingClient({
    apiKey: provider.apiKeys.shipping[0],
    baseUrl: provider.baseUrl,
    fetch: provider.fetch,
  });
  const quoter = createRateQuoter({ client, couriers: COURIERS });
  const warm = await quoter.quote(ROUTE);
  // The hand-written cache: lru-cache with the freshness as its TTL (it checks it on get, as the quoter checks its
  // windows), the same entry (the route's answers by courier) under a key built per call, the same answer assembled.
  const lru = new LRUCache({ max: 10_000, ttl: FRESH_MS });
  const routeEntry = new Map(
    warm.rates.map((rates) => [rates.courier, { fetchedAt: rates.fetchedAt, options: rates.options }]),
  );
  lru.set(`${ACCOUNT} ${ROUTE.origin} ${ROUTE.destination}  ${ROUTE.weight}`, routeEntry);
  const whole = new LRUCache({ max: 10_000, ttl: FRESH_MS });
  whole.set(`${ROUTE.origin}:${ROUTE.destination}:${ROUTE.weight}`, assemble(COURIERS.map((c) => routeEntry.get(c))));
  const sides = {
    quoter: () => quoter.quote(ROUTE),
    handwritten: async () => {
      const route = lru.get(`${ACCOUNT} ${ROUTE.origin} ${ROUTE.destination}  ${ROUTE.weight}`);
      const entries = [];
      for (const courier of COURIERS) entries.push(route.get(courier));
      return assemble(entries);
    },
    wholeAnswer: async () => whole.get(`${ROUTE.origin}:${ROUTE.destination}:${ROUTE.weight}`),
  };
  checkSame(await sides.quoter(), await sides.handwritten());
  if ((await sides.quoter()).rates.some((r) => r.source !== "cache")) throw new Error("not a cache hit");
  const times = await paired(sides, rounds, count, count);
  // Pure CPU work on both sides: CPU time of this process is the steadier figure on a shared machine (a round whose
  // batch was descheduled moves its wall time, not its CPU time); wall time is reported beside it.
  return {
    quoterUs: median(times.quoter.map((t) => t.cpu)),
    handwrittenUs: median(times.handwritten.map((t) => t.cpu)),
    wholeUs: median(times.wholeAnswer.map((t) => t.cpu)),
    ratios: ratiosOf(times, "quoter", "handwritten", "cpu"),
    wallRatios: ratiosOf(times, "quoter", "handwritten", "wall"),
    wholeRatios: ratiosOf(times, "quoter", "wholeAnswer", "cpu"),
  };
}

export async function redisHitCost({ rounds, count, redisUrl }) {
  const provider = createFakeProvider({ rateLimit: false, recordRequests: false });
  const client = new ShippingClient({
    apiKey: provider.apiKeys.shipping[0],
    baseUrl: provider.baseUrl,
    fetch: provider.fetch,
  });
  const redis = new Redis(redisUrl, { enableOfflineQueue: false, lazyConnect: true });
  await redis.connect();
  try {
    const quoter = createRateQuoter({
      client,
      couriers: COURIERS,
      cache: { store: redisRateStore({ client: redis, keyPrefix: "bench:hit:" }) },
    });
    const warm = await quoter.quote(ROUTE);
    // The hand-rolled shop cache: one key per route holding the whole answer as JSON.
    const wholeKey = `bench:handrolled:${ROUTE.origin}:${ROUTE.destination}:${ROUTE.weight}`;
    await redis.set(wholeKey, JSON.stringify(warm), "PX", FRESH_MS);
    const hashKey = `bench:handrolled:${ROUTE.origin}:${ROUTE.destination}:${ROUTE.weight}:hash`;
    for (const rates of warm.rates) {
      await redis.hset(hashKey, rates.courier, JSON.stringify({ fetchedAt: rates.fetchedAt, options: rates.options }));
    }
    const sides = {
      quoter: () => quoter.quote(ROUTE),
      handrolled: async () => JSON.parse(await redis.get(wholeKey)),
      hmget: async () => assemble((await redis.hmget(hashKey, ...COURIERS)).map((text) => JSON.parse(text))),
    };
    if ((await sides.quoter()).rates.some((r) => r.source !== "cache")) throw new Error("not a cache hit");
    checkSame(await sides.quoter(), await sides.hmget());
    const times = await paired(sides, rounds, count, count);
    // A round trip to another process: wall time is the figure (the client's CPU time leaves Redis's out).
    return {
      quoterUs: median(times.quoter.map((t) => t.wall)),
      handrolledUs: median(times.handrolled.map((t) => t.wall)),
      hmgetUs: median(times.hmget.map((t) => t.wall)),
      ratios: ratiosOf(times, "quoter", "handrolled", "wall"),
      hmgetRatios: ratiosOf(times, "quoter", "hmget", "wall"),
    };
  } finally {
    redis.disconnect();
  }
}
