// The rate quoter with its prices in a real redis-server, against the fake provider: two instances sharing Redis ask
// the provider once for identical questions; with Redis killed mid-trace, quotes answer from memory or the provider
// within the budget and never serve a price past its maximum age; after a restart, Redis is used again.
import { ShippingClient } from "@kirimbayar/core";
import { createRateQuoter, type RateQuote } from "@kirimbayar/core/quoter";
import { redisRateStore } from "@kirimbayar/core/quoter/redis";
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import { createFakeProvider, type FakeProvider } from "@kirimbayar/testing";
import { Redis, type RedisOptions } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const GAMBIR = 1_520_101;
const DESTINATIONS = [230_201, 2_780_101, 1_520_102, 1_530_101, 230_202, 5_010_101];
const COURIERS = ["jne", "sicepat", "pos", "tiki"];
// Generous against a busy machine; a quote waiting on a dead Redis or on its reconnects would take far longer.
const SLACK_MS = 250;

let redis: TestRedisServer;
const clients: Redis[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
});

afterEach(() => {
  for (const client of clients.splice(0)) client.disconnect();
});

afterAll(async () => {
  await redis?.stop();
});

async function connect(options: RedisOptions = {}): Promise<Redis> {
  const client = new Redis(redis.url, {
    enableOfflineQueue: false,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => 50,
    ...options,
  });
  client.on("error", () => {});
  await client.connect();
  clients.push(client);
  return client;
}

/** A client of the fake that records the courier list of every cost call. */
function recordedClient(provider: FakeProvider, calls: string[][]) {
  return new ShippingClient({
    apiKey: provider.apiKeys.shipping[0] ?? "",
    baseUrl: provider.baseUrl,
    fetch: async (input, init) => {
      const courier = typeof init?.body === "string" ? new URLSearchParams(init.body).get("courier") : null;
      if (courier) calls.push(courier.split(":"));
      return provider.fetch(input, init);
    },
  });
}

describe("rate quoters sharing Redis", () => {
  it("coalesce 100 identical quotes made at once by two instances into one provider call per courier", async () => {
    const provider = createFakeProvider({ latencyMs: 50 });
    const calls: string[][] = [];
    const prefix = `coalesce-${Date.now()}:`;
    const instances = await Promise.all(
      [0, 1].map(async () =>
        createRateQuoter({
          client: recordedClient(provider, calls),
          couriers: COURIERS,
          cache: { store: redisRateStore({ client: await connect(), keyPrefix: prefix }) },
        }),
      ),
    );
    const route = { origin: GAMBIR, destination: DESTINATIONS[0] ?? 0, weight: 1_000 };
    const quotes = await Promise.all(
      instances.flatMap((quoter) => Array.from({ length: 50 }, () => quoter.quote(route))),
    );
    for (const courier of COURIERS) expect(calls.filter((c) => c.includes(courier))).toHaveLength(1);
    expect(quotes.every((quote) => quote.complete && quote.rates.length === COURIERS.length)).toBe(true);
    const [a, b] = instances.map((quoter) => quoter.stats().total);
    expect((a?.pricesFetched ?? 0) + (b?.pricesFetched ?? 0)).toBe(COURIERS.length);
    // The instance that lost the locks waited for the other's answer in Redis: all its couriers were coalesced.
    expect((a?.savedByCoalescing ?? 0) + (b?.savedByCoalescing ?? 0)).toBe(100 * COURIERS.length - COURIERS.length);

    // A third instance finds the answers in Redis.
    const late = createRateQuoter({
      client: recordedClient(provider, calls),
      couriers: COURIERS,
      cache: { store: redisRateStore({ client: await connect(), keyPrefix: prefix }) },
    });
    expect((await late.quote(route)).rates.every((rates) => rates.source === "cache")).toBe(true);
    expect(calls).toHaveLength(1);
  });

  it.each([
    ["a client that fails fast while disconnected", {}],
    ["a client that queues commands while disconnected (the time limit answers)", { enableOfflineQueue: true }],
  ])(
    "keep answering within the budget with Redis killed mid-trace, never past the max age (%s)",
    async (_, options) => {
      const provider = createFakeProvider();
      const calls: string[][] = [];
      const budgetMs = 300;
      const windows = { freshMs: 20_000, staleWhileRevalidateMs: 0, staleIfErrorMs: 40_000, maxAgeMs: 60_000 };
      const prefix = `outage-${Date.now()}:`;
      const client = await connect(options);
      const quoter = createRateQuoter({
        client: recordedClient(provider, calls),
        couriers: COURIERS,
        budgetMs,
        clock: () => provider.clock.now(),
        cache: { ...windows, store: redisRateStore({ client, keyPrefix: prefix }), storeRetryMs: 300 },
      });
      const served: { quote: RateQuote; ms: number; at: number; phase: string }[] = [];
      let phase = "before";
      for (let step = 0; step < 120; step++) {
        if (step === 40) {
          await redis.crash();
          phase = "down";
        }
        // While Redis is away, one courier fails for 87.5 s of the quoter's clock, longer than the max age: its price is
        // served stale (stale-if-error) until it is 60 s old, then never again.
        if (step === 50) provider.setCourierFault("jne", { status: 503 });
        if (step === 85) provider.setCourierFault("jne", undefined);
        if (step === 90) {
          await redis.start();
          phase = "back";
        }
        const destination = DESTINATIONS[step % DESTINATIONS.length] ?? 0;
        const started = performance.now();
        const quote = await quoter.quote({ origin: GAMBIR, destination, weight: 1_000 });
        served.push({ quote, ms: performance.now() - started, at: provider.clock.now(), phase });
        await provider.clock.advance(2_500); // the trace spans 300 s of the quoter's clock: entries age past 60 s
      }

      for (const { quote, ms, at } of served) {
        expect(ms).toBeLessThan(budgetMs + SLACK_MS);
        expect(quote.missing.filter((m) => m.courier !== "jne")).toEqual([]);
        for (const rates of quote.rates) {
          expect(["cache", "provider"]).toContain(rates.source);
          expect(at - (rates.fetchedAt ?? Number.NEGATIVE_INFINITY)).toBeLessThanOrEqual(windows.maxAgeMs);
          if (rates.source === "cache" && !rates.stale) {
            expect(at - (rates.fetchedAt ?? 0)).toBeLessThanOrEqual(windows.freshMs);
          }
        }
      }
      const down = served.filter((s) => s.phase === "down");
      // While Redis was away, prices came from this instance's memory (fresh ones) and from the provider.
      expect(down.some((s) => s.quote.rates.some((r) => r.source === "cache"))).toBe(true);
      expect(down.some((s) => s.quote.rates.some((r) => r.source === "provider"))).toBe(true);
      const jne = down.map((s) => s.quote.rates.find((r) => r.courier === "jne") ?? s.quote.missing[0]);
      expect(jne.some((r) => r !== undefined && "stale" in r && r.stale)).toBe(true);
      expect(jne.some((r) => r !== undefined && "reason" in r && r.reason === "failed")).toBe(true);
      expect(served.filter((s) => s.phase === "back").every((s) => s.quote.complete)).toBe(true);

      // Back: after the retry delay, answers are written to the restarted (empty) Redis again.
      await new Promise((resolve) => setTimeout(resolve, 400));
      await provider.clock.advance(61_000);
      await quoter.quote({ origin: GAMBIR, destination: DESTINATIONS[0] ?? 0, weight: 1_000 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const check = await connect();
      expect(await check.keys(`${prefix}*`)).not.toEqual([]);
    },
  );
});
