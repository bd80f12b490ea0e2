// The outage section: the Zipf trace through a quoter whose prices live in Redis, Redis killed (SIGKILL) mid-trace
// and started again later. Latency per phase, the oldest price any quote served against the max age, and how long
// after the restart the quoter wrote to Redis again.
import { ShippingClient } from "@kirimbayar/core";
import { createRateQuoter } from "@kirimbayar/core/quoter";
import { redisRateStore } from "@kirimbayar/core/quoter/redis";
import { Redis } from "ioredis";
import { FAULTS, HEALTHY } from "./tail.mjs";
import { quantile, replay, routes, startFake, zipfTrace } from "./trace.mjs";

const COURIERS = ["jne", "sicepat", "jnt", "pos", "anteraja"];
// Short windows, so that during a trace of seconds prices do age past the max age and the rule is exercised.
const WINDOWS = { freshMs: 2_000, staleWhileRevalidateMs: 0, staleIfErrorMs: 3_000, maxAgeMs: 5_000 };

export async function redisOutage({ checkouts, perSecond, zipf, seed, redis, budgetMs }) {
  const fake = await startFake(FAULTS);
  const client = new Redis(redis.url, {
    enableOfflineQueue: false,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => 50,
  });
  client.on("error", () => {});
  await client.connect();
  const probe = new Redis(redis.url, { lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: 0 });
  probe.on("error", () => {});
  await probe.connect();
  try {
    const quoter = createRateQuoter({
      client: new ShippingClient({ apiKey: fake.key, baseUrl: fake.url }),
      couriers: COURIERS,
      budgetMs,
      cache: { ...WINDOWS, store: redisRateStore({ client, keyPrefix: "bench:outage:" }) },
    });
    const list = routes(200);
    const trace = zipfTrace(checkouts, list.length, zipf, seed);
    const killAt = Math.floor(checkouts * 0.4);
    const startAt = Math.floor(checkouts * 0.75);
    let phase = "before";
    let restartedAt;
    let writtenAgainMs;
    const watchers = [];
    const results = await replay(trace, perSecond, async (index, i) => {
      if (i === killAt) {
        phase = "down";
        watchers.push(redis.crash());
      }
      if (i === startAt) {
        phase = "after";
        watchers.push(
          redis.start().then(async () => {
            restartedAt = performance.now();
            // How long until the quoter writes to the restarted (empty) Redis again.
            for (let tries = 0; tries < 200 && writtenAgainMs === undefined; tries++) {
              if ((await probe.dbsize().catch(() => 0)) > 0) writtenAgainMs = performance.now() - restartedAt;
              else await new Promise((resolve) => setTimeout(resolve, 25));
            }
          }),
        );
      }
      const at = Date.now();
      const quote = await quoter.quote({ ...list[index], weight: 1_000 });
      const oldest = Math.max(0, ...quote.rates.filter((r) => r.fetchedAt).map((r) => at - r.fetchedAt));
      return { quote, phase, oldest };
    });
    await Promise.all(watchers);
    const byPhase = (name) => results.filter((r) => r.value?.phase === name);
    const phaseRow = (name) => {
      const rows = byPhase(name);
      const latencies = rows.map((r) => r.ms);
      const healthy = rows.filter((r) =>
        HEALTHY.every((c) => r.value.quote.rates.some((x) => x.courier === c && x.source !== "backup")),
      ).length;
      return {
        phase: name,
        quotes: rows.length,
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
        max: Math.max(...latencies),
        healthyCoverage: healthy / rows.length,
        fromCache: rows.filter((r) => r.value.quote.rates.some((x) => x.source === "cache")).length,
      };
    };
    return {
      phases: ["before", "down", "after"].map(phaseRow),
      errors: results.filter((r) => r.error !== undefined).length,
      oldestServedMs: Math.max(...results.filter((r) => r.value).map((r) => r.value.oldest)),
      maxAgeMs: WINDOWS.maxAgeMs,
      writtenAgainMs,
      windows: WINDOWS,
      checkouts,
      perSecond,
    };
  } finally {
    client.disconnect();
    probe.disconnect();
    await fake.stop();
  }
}
