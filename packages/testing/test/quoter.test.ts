// The rate quoter against the fake provider: budgets, slow, failing and refusing couriers, backup rates, the cache
// windows on the fake's clock, coalescing, batching and its hedge, every cost operation, invalidation, stats.
import { ShippingClient } from "@kirimbayar/core";
import {
  createRateQuoter,
  memoryRateStore,
  perKilogramWeight,
  type RateEntry,
  type RateStore,
} from "@kirimbayar/core/quoter";
import { describe, expect, it } from "vitest";
import { fake } from "./helpers.js";
import {
  BRAGA,
  DARAT,
  FIVE,
  GAMBIR,
  pause,
  proOn,
  recordingFetch,
  shippingOn,
  starterOn,
  timed,
} from "./quoter-support.js";

const route = { origin: GAMBIR, destination: BRAGA, weight: 1_000 };
// Generous against a busy machine, and still far below the slow courier's delay it must not wait for.
const SLACK_MS = 250;

describe("rate quoter: the time budget", () => {
  it("answers within the budget with every price that arrived; a late answer fills the cache for the next view", async () => {
    const provider = fake();
    provider.setCourierFault("sicepat", { delayMs: 900 });
    const { client, log } = shippingOn(provider);
    const quoter = createRateQuoter({ client, couriers: ["jne", "sicepat", "pos"], budgetMs: 300 });

    const first = await timed(() => quoter.quote(route));
    expect(first.ms).toBeLessThan(300 + SLACK_MS);
    expect(first.value.rates.map((r) => [r.courier, r.source])).toEqual([
      ["jne", "provider"],
      ["pos", "provider"],
    ]);
    expect(first.value.missing).toEqual([{ courier: "sicepat", reason: "pending" }]);
    expect(first.value.complete).toBe(false);

    await pause(900);
    const second = await timed(() => quoter.quote(route));
    expect(second.ms).toBeLessThan(50);
    expect(second.value.complete).toBe(true);
    const sicepat = second.value.rates.find((r) => r.courier === "sicepat");
    expect(sicepat).toMatchObject({ source: "cache", stale: false });
    expect(sicepat?.options.length).toBeGreaterThan(0);
    expect(sicepat?.fetchedAt).toEqual(expect.any(Number));
    // The late answer was the one call for sicepat (its own, after the shared call was split at the hedge).
    expect(log.of("sicepat")).toBeLessThanOrEqual(2);
    const callsBefore = log.calls.length;
    await quoter.quote(route);
    expect(log.calls.length).toBe(callsBefore);
  });

  it("names a failing courier with its error and stops asking it while it cools down", async () => {
    const provider = fake();
    provider.setCourierFault("jnt", { status: 503 });
    const { client, log } = shippingOn(provider);
    const quoter = createRateQuoter({
      client,
      couriers: ["jne", "jnt", "pos"],
      budgetMs: 500,
      failureCooldownMs: 60_000,
    });

    const quote = await quoter.quote(route);
    expect(quote.rates.map((r) => r.courier)).toEqual(["jne", "pos"]);
    expect(quote.missing).toHaveLength(1);
    expect(quote.missing[0]).toMatchObject({ courier: "jnt", reason: "failed", error: { status: 503 } });
    const jntCalls = log.of("jnt");

    const elsewhere = await quoter.quote({ ...route, destination: DARAT });
    expect(elsewhere.missing).toMatchObject([{ courier: "jnt", reason: "failed" }]);
    expect(log.of("jnt")).toBe(jntCalls);
    // Cooling down, it is priced alone once asked again: it no longer fails the others' call.
    expect(log.calls.at(-1)).toEqual(["jne", "pos"]);
  });

  it("answers a courier with no price in time at the shop's backup rate, marked, flat or per destination", async () => {
    const provider = fake();
    provider.setCourierFault("sicepat", { delayMs: 2_000 });
    provider.setCourierFault("jnt", { status: 500 });
    const { client } = shippingOn(provider);
    const quoter = createRateQuoter({
      client,
      couriers: ["jne", "sicepat", "jnt"],
      budgetMs: 250,
      backup: {
        flat: { cost: 40_000 },
        byDestination: { [String(DARAT)]: { cost: 55_000, service: "REG", etd: "3-5 day" } },
      },
    });
    const quote = await quoter.quote(route);
    expect(quote.complete).toBe(false);
    expect(quote.missing).toEqual([]);
    const byCourier = Object.fromEntries(quote.rates.map((r) => [r.courier, r]));
    expect(byCourier.sicepat).toMatchObject({ source: "backup", backupReason: "pending", fetchedAt: undefined });
    expect(byCourier.sicepat?.options).toEqual([
      {
        courier: "sicepat",
        code: "sicepat",
        name: undefined,
        service: "BACKUP",
        description: "Backup rate",
        cost: 40_000,
        etd: "",
      },
    ]);
    expect(byCourier.jnt).toMatchObject({ source: "backup", backupReason: "failed" });
    expect(byCourier.jne?.source).toBe("provider");

    const medan = await quoter.quote({ ...route, destination: DARAT, couriers: ["sicepat"] });
    expect(medan.rates[0]?.options[0]).toMatchObject({ cost: 55_000, service: "REG", etd: "3-5 day" });
  });

  it("never shows a backup rate for a courier that does not serve the route, and caches that answer", async () => {
    const provider = fake();
    provider.setCourierFault("anteraja", { refuse: true });
    const { client, log } = shippingOn(provider);
    const quoter = createRateQuoter({ client, couriers: ["jne", "anteraja"], backup: { flat: { cost: 30_000 } } });
    const quote = await quoter.quote(route);
    expect(quote.complete).toBe(true);
    expect(quote.rates.map((r) => r.courier)).toEqual(["jne"]);
    expect(quote.missing).toEqual([{ courier: "anteraja", reason: "not_served", fetchedAt: expect.any(Number) }]);
    const calls = log.calls.length;
    expect((await quoter.quote(route)).missing).toMatchObject([{ courier: "anteraja", reason: "not_served" }]);
    expect(log.calls.length).toBe(calls);
  });

  it("gives up on a call after callTimeoutMs: the courier is failed with a timeout, never a hung quote", async () => {
    const provider = fake();
    provider.setCourierFault("pos", { delayMs: 1_500 });
    const { client } = shippingOn(provider);
    const quoter = createRateQuoter({ client, couriers: ["pos"], budgetMs: 200, callTimeoutMs: 400 });
    expect((await quoter.quote(route)).missing).toEqual([{ courier: "pos", reason: "pending" }]);
    await pause(450);
    const after = await quoter.quote(route);
    expect(after.missing).toMatchObject([{ courier: "pos", reason: "failed", error: { code: "timeout" } }]);
  });
});

describe("rate quoter: cache windows on the fake provider's clock", () => {
  const windows = { freshMs: 60_000, staleWhileRevalidateMs: 60_000, staleIfErrorMs: 600_000, maxAgeMs: 900_000 };

  it("serves fresh, then stale while revalidating, then stale only if the provider fails, never past the max age", async () => {
    const provider = fake();
    const { client, log } = shippingOn(provider);
    const clock = () => provider.clock.now();
    const quoter = createRateQuoter({ client, couriers: ["jne"], cache: windows, clock, failureCooldownMs: 0 });
    const first = await quoter.quote(route);
    const fetchedAt = first.rates[0]?.fetchedAt;
    expect(fetchedAt).toBe(provider.clock.now());

    await provider.clock.advance(59_000);
    expect((await quoter.quote(route)).rates[0]).toMatchObject({ source: "cache", stale: false });
    expect(log.calls).toHaveLength(1);

    await provider.clock.advance(30_000); // 89 s: stale-while-revalidate
    const revalidating = await quoter.quote(route);
    expect(revalidating.rates[0]).toMatchObject({ source: "cache", stale: true });
    expect(revalidating.rates[0]?.fetchedAt).toBe(fetchedAt);
    await pause(20);
    expect(log.calls).toHaveLength(2);
    const refreshed = await quoter.quote(route);
    expect(refreshed.rates[0]).toMatchObject({ source: "cache", stale: false });
    expect(refreshed.rates[0]?.fetchedAt).toBe(provider.clock.now());

    await provider.clock.advance(300_000); // 300 s after the refresh: past revalidation, within stale-if-error
    provider.setCourierFault("jne", { status: 502 });
    const ifError = await quoter.quote(route);
    expect(ifError.rates[0]).toMatchObject({ source: "cache", stale: true });
    expect(ifError.complete).toBe(true);
    expect(log.calls).toHaveLength(3);
    expect(quoter.stats().total.staleIfError).toBe(1);

    await provider.clock.advance(600_001); // past the max age: never served, even with the provider failing
    const expired = await quoter.quote(route);
    expect(expired.rates).toEqual([]);
    expect(expired.missing).toMatchObject([{ courier: "jne", reason: "failed" }]);

    provider.setCourierFault("jne", undefined);
    const back = await quoter.quote(route);
    expect(back.rates[0]).toMatchObject({ source: "provider", stale: false });
  });

  it("serves a stale price when the provider is late, within stale-if-error", async () => {
    const provider = fake();
    const { client } = shippingOn(provider);
    const quoter = createRateQuoter({
      client,
      couriers: ["jne"],
      budgetMs: 200,
      cache: windows,
      clock: () => provider.clock.now(),
    });
    await quoter.quote(route);
    await provider.clock.advance(200_000);
    provider.setCourierFault("jne", { delayMs: 800 });
    const { ms, value } = await timed(() => quoter.quote(route));
    expect(ms).toBeLessThan(200 + SLACK_MS);
    expect(value.rates[0]).toMatchObject({ source: "cache", stale: true });
  });

  it("keys the cache by billed weight: exact grams by default, shared kilograms only under perKilogramWeight", async () => {
    const provider = fake();
    const exact = shippingOn(provider);
    const exactQuoter = createRateQuoter({ client: exact.client, couriers: ["jne"] });
    const a = await exactQuoter.quote({ ...route, weight: 1_001 });
    const b = await exactQuoter.quote({ ...route, weight: 1_400 });
    expect(exact.log.calls).toHaveLength(2);
    // The fake bills per started kilogram, so both weights cost the same: a per-kilogram rule may share them.
    expect(b.rates[0]?.options.map((o) => o.cost)).toEqual(a.rates[0]?.options.map((o) => o.cost));

    const rounded = shippingOn(provider);
    const kgQuoter = createRateQuoter({
      client: rounded.client,
      couriers: ["jne"],
      cache: { billedWeight: perKilogramWeight() },
    });
    await kgQuoter.quote({ ...route, weight: 1_001 });
    const shared = await kgQuoter.quote({ ...route, weight: 1_400 });
    expect(shared.rates[0]?.source).toBe("cache");
    await kgQuoter.quote({ ...route, weight: 2_001 });
    expect(rounded.log.calls).toHaveLength(2);
  });

  it("keys the cache by every other input field too (price order)", async () => {
    const provider = fake();
    const { client, log } = shippingOn(provider);
    const quoter = createRateQuoter({ client, couriers: ["jne"] });
    const lowest = await quoter.quote({ ...route, price: "lowest" });
    const highest = await quoter.quote({ ...route, price: "highest" });
    expect(log.calls).toHaveLength(2);
    expect(lowest.rates[0]?.options[0]?.cost).toBeLessThan(highest.rates[0]?.options[0]?.cost ?? 0);
  });
});

describe("rate quoter: one call per question", () => {
  it("coalesces 100 concurrent identical quotes into one provider call per courier", async () => {
    const provider = fake();
    provider.setLatency(50);
    const { client, log } = shippingOn(provider);
    const quoter = createRateQuoter({ client, couriers: [...FIVE] });
    const quotes = await Promise.all(Array.from({ length: 100 }, () => quoter.quote(route)));
    for (const courier of FIVE) expect(log.of(courier)).toBe(1);
    expect(quotes.every((q) => q.complete && q.rates.length === 5)).toBe(true);
    expect(quoter.stats().total).toMatchObject({ providerCalls: 1, pricesFetched: 5, savedByCoalescing: 99 * 5 });
  });

  it("with a shared store, takes an answer another instance wrote between its cache read and its lock", async () => {
    const provider = fake();
    const routes = new Map<string, Map<string, RateEntry>>();
    const locks = new Set<string>();
    let released: () => void = () => {};
    const firstRelease = new Promise<void>((resolve) => {
      released = resolve;
    });
    const shared: RateStore = {
      get: (key, couriers) => couriers.map((courier) => routes.get(key)?.get(courier)),
      set: (key, courier, entry) => void routes.set(key, (routes.get(key) ?? new Map()).set(courier, entry)),
      delete: (key, couriers) => {
        for (const courier of couriers) routes.get(key)?.delete(courier);
      },
      deletePrefix: () => routes.clear(),
      lock: async (key, courier) => {
        if (locks.has(`${key} ${courier}`)) return false;
        locks.add(`${key} ${courier}`);
        return true;
      },
      unlock: async (key, courier) => {
        locks.delete(`${key} ${courier}`);
        released();
      },
    };
    // The second instance read the store before the first wrote its answer, and reaches the lock only after the first
    // let go of it: the window where both would ask the provider.
    const late: RateStore = {
      ...shared,
      lock: async (...args) => firstRelease.then(() => shared.lock?.(...args) ?? true),
    };
    const a = shippingOn(provider);
    const b = shippingOn(provider);
    const first = createRateQuoter({ client: a.client, couriers: ["jne", "pos"], cache: { store: shared } });
    const second = createRateQuoter({ client: b.client, couriers: ["jne", "pos"], cache: { store: late } });
    const [asked, taken] = await Promise.all([first.quote(route), second.quote(route)]);
    expect(asked.rates.map((r) => r.courier)).toEqual(["jne", "pos"]);
    expect(taken.rates.map((r) => r.courier)).toEqual(["jne", "pos"]);
    expect(a.log.calls.length).toBe(1);
    expect(b.log.calls).toEqual([]);
    expect(second.stats().total).toMatchObject({ providerCalls: 0, savedByCoalescing: 2 });
  });

  it("with batching off, prices each courier in a call of its own", async () => {
    const provider = fake();
    const { client, log } = shippingOn(provider);
    const quoter = createRateQuoter({ client, couriers: ["jne", "pos", "tiki"], batching: false });
    await quoter.quote(route);
    expect(log.calls.sort()).toEqual([["jne"], ["pos"], ["tiki"]]);
  });

  it("splits a late shared call at the hedge delay, then prices the slow courier alone", async () => {
    const provider = fake();
    provider.setCourierFault("sicepat", { delayMs: 1_000 });
    const { client, log } = shippingOn(provider);
    const quoter = createRateQuoter({
      client,
      couriers: ["jne", "sicepat", "pos"],
      budgetMs: 400,
      batching: { hedgeMs: 100 },
    });
    const first = await quoter.quote(route);
    expect(first.rates.map((r) => r.courier)).toEqual(["jne", "pos"]);
    expect(log.calls).toEqual(
      [["jne", "sicepat", "pos"], ["jne"], ["sicepat"], ["pos"]].map((c) => expect.arrayContaining(c)),
    );
    expect(quoter.stats().total.hedgeCalls).toBe(3);

    log.calls.length = 0;
    const { ms, value } = await timed(() => quoter.quote({ ...route, destination: DARAT }));
    expect(ms).toBeLessThan(400 + SLACK_MS);
    expect(value.rates.map((r) => r.courier)).toEqual(["jne", "pos"]);
    expect(log.calls).toEqual(expect.arrayContaining([["jne", "pos"], ["sicepat"]]));
    expect(log.calls).toHaveLength(2);
  });

  it("prices dimensions (Pro) one courier per call, as the provider requires", async () => {
    const provider = fake();
    const { client, log } = proOn(provider);
    const quoter = createRateQuoter({ client, couriers: ["jne", "pos"] });
    const quote = await quoter.quote({
      origin: "152",
      originType: "city",
      destination: "23",
      destinationType: "city",
      weight: 1_000,
      length: 20,
      width: 10,
      height: 5,
    });
    expect(quote.rates.map((r) => r.courier)).toEqual(["jne", "pos"]);
    expect(log.calls.sort()).toEqual([["jne"], ["pos"]]);
  });
});

describe("rate quoter: every cost operation and account", () => {
  it("prices the district-level and international operations of the current interface", async () => {
    const provider = fake();
    const { client } = shippingOn(provider);
    const district = createRateQuoter({ client, operation: "calculateDistrictDomesticCost", couriers: ["jne", "pos"] });
    const byDistrict = await district.quote({ origin: 15_201, destination: 2_302, weight: 500 });
    expect(byDistrict.rates.map((r) => r.courier)).toEqual(["jne", "pos"]);
    const international = createRateQuoter({
      client,
      operation: "calculateInternationalCost",
      couriers: ["pos", "jne"],
    });
    const abroad = await international.quote({ origin: GAMBIR, destination: "108", weight: 500 });
    expect(abroad.rates.map((r) => r.courier)).toEqual(["pos", "jne"]);
    expect(abroad.rates[0]?.options[0]).toMatchObject({ courier: "pos", currency: "IDR" });
  });

  it("prices the Pro cost (with location types) and international cost, and the Starter cost", async () => {
    const provider = fake();
    const pro = proOn(provider);
    const proQuoter = createRateQuoter({ client: pro.client, couriers: ["jne", "tiki"] });
    const quote = await proQuoter.quote({
      origin: "152",
      originType: "city",
      destination: "2302",
      destinationType: "subdistrict",
      weight: 1_700,
    });
    expect(quote.rates.map((r) => r.courier)).toEqual(["jne", "tiki"]);
    expect(quote.rates[0]?.options[0]).toMatchObject({ courier: "jne", code: "jne", cost: expect.any(Number) });
    const proIntl = createRateQuoter({
      client: pro.client,
      operation: "calculateInternationalCost",
      couriers: ["pos"],
    });
    const abroad = await proIntl.quote({ origin: "152", destination: "108", weight: 1_400 });
    expect(abroad.rates[0]?.options.length).toBeGreaterThan(0);

    const starter = starterOn(provider);
    const starterQuoter = createRateQuoter({ client: starter.client, couriers: ["jne", "pos", "tiki"] });
    const cheap = await starterQuoter.quote({ origin: "152", destination: "23", weight: 1_000 });
    expect(cheap.rates.map((r) => r.courier)).toEqual(["jne", "pos", "tiki"]);
    expect(starter.log.calls).toEqual([["jne", "pos", "tiki"]]);
  });

  it("on a Starter account too: a slow courier is pending within the budget, a refusing one not served, a failing one failed", async () => {
    const provider = fake();
    provider.setCourierFault("tiki", { delayMs: 900 });
    const starter = starterOn(provider);
    const quoter = createRateQuoter({ client: starter.client, couriers: ["jne", "pos", "tiki"], budgetMs: 300 });
    const slow = await timed(() => quoter.quote({ origin: "152", destination: "23", weight: 1_000 }));
    expect(slow.ms).toBeLessThan(300 + SLACK_MS);
    expect(slow.value.rates.map((r) => r.courier)).toEqual(["jne", "pos"]);
    expect(slow.value.missing).toEqual([{ courier: "tiki", reason: "pending" }]);

    provider.clearFaults();
    provider.setCourierFault("pos", { refuse: true });
    provider.setCourierFault("tiki", { status: 503 });
    const other = await quoter.quote({ origin: "152", destination: "501", weight: 1_000 });
    expect(other.rates.map((r) => r.courier)).toEqual(["jne"]);
    expect(other.missing).toEqual([
      expect.objectContaining({ courier: "pos", reason: "not_served" }),
      expect.objectContaining({ courier: "tiki", reason: "failed" }),
    ]);
  });

  it("never mixes two accounts' prices in one store; two clients of one account share them", async () => {
    const provider = fake({ apiKeys: { shipping: ["key-of-shop-a", "key-of-shop-b"] } });
    const memory = memoryRateStore();
    const written: string[] = [];
    const store = {
      get: (key: string, couriers: readonly string[]) => memory.get(key, couriers),
      set: (key: string, courier: string, entry: RateEntry) => {
        written.push(key);
        memory.set(key, courier, entry);
      },
      delete: (key: string, couriers: readonly string[]) => memory.delete(key, couriers),
      deletePrefix: (prefix: string) => memory.deletePrefix(prefix),
    };
    const a = shippingOn(provider, "key-of-shop-a");
    const b = shippingOn(provider, "key-of-shop-b");
    const alsoA = shippingOn(provider, "key-of-shop-a");
    await createRateQuoter({ client: a.client, couriers: ["jne"], cache: { store } }).quote(route);
    const fromB = await createRateQuoter({ client: b.client, couriers: ["jne"], cache: { store } }).quote(route);
    expect(fromB.rates[0]?.source).toBe("provider");
    expect(b.log.calls).toHaveLength(1);
    const fromAlsoA = await createRateQuoter({ client: alsoA.client, couriers: ["jne"], cache: { store } }).quote(
      route,
    );
    expect(fromAlsoA.rates[0]?.source).toBe("cache");
    expect(alsoA.log.calls).toHaveLength(0);
    // The cache keys carry a digest of the account, never the key itself.
    expect(written).toHaveLength(2);
    expect(new Set(written.map((key) => key.split(" ")[0])).size).toBe(2);
    expect(written.join("\n")).not.toContain("key-of-shop");
  });

  it("drops a route's prices on invalidate() and every price on invalidateAll()", async () => {
    const provider = fake();
    const { client, log } = shippingOn(provider);
    const quoter = createRateQuoter({ client, couriers: ["jne", "pos"] });
    await quoter.quote(route);
    await quoter.quote({ ...route, destination: DARAT });
    expect(log.calls).toHaveLength(2);
    await quoter.invalidate({ ...route, couriers: ["pos"] });
    const again = await quoter.quote(route);
    expect(again.rates.map((r) => r.source)).toEqual(["cache", "provider"]);
    expect(log.calls.at(-1)).toEqual(["pos"]);
    await quoter.invalidateAll();
    await quoter.quote(route);
    await quoter.quote({ ...route, destination: DARAT });
    expect(log.calls).toHaveLength(5);
  });

  it("shares a fresh quote between identical questions only while its route holds the same answers", async () => {
    const provider = fake();
    const { client, log } = shippingOn(provider);
    const quoter = createRateQuoter({
      client,
      couriers: ["jne", "pos"],
      cache: { store: memoryRateStore({ max: 1 }) },
    });
    const first = await quoter.quote(route);
    const second = await quoter.quote(route);
    const third = await quoter.quote(route);
    expect(third).toBe(second); // built once from the cached answers, then shared (it is frozen)
    expect(Object.isFrozen(third) && Object.isFrozen(third.rates) && Object.isFrozen(third.rates[0])).toBe(true);
    expect(third.rates.map((r) => r.options)).toEqual(first.rates.map((r) => r.options));

    await quoter.invalidate(route);
    expect((await quoter.quote(route)).rates.map((r) => r.source)).toEqual(["provider", "provider"]);
    expect(log.calls).toHaveLength(2);

    await quoter.quote(route);
    await quoter.quote({ ...route, destination: DARAT }); // a store of one route: the first one is evicted
    const afterEviction = await quoter.quote(route);
    expect(afterEviction.rates.map((r) => r.source)).toEqual(["provider", "provider"]);
    expect(log.calls).toHaveLength(4);

    const subset = await quoter.quote({ ...route, couriers: ["pos"] });
    expect(subset.rates.map((r) => [r.courier, r.source])).toEqual([["pos", "cache"]]);
  });

  it("hands out read-only options: a caller cannot change the next customer's quote", async () => {
    const provider = fake();
    const { client } = shippingOn(provider);
    const quoter = createRateQuoter({ client, couriers: ["jne"] });
    const first = await quoter.quote(route);
    const options = first.rates[0]?.options as { cost: number }[];
    expect(() => {
      (options[0] as { cost: number }).cost = 1;
    }).toThrow(TypeError);
    expect(() => (options as unknown[]).sort()).toThrow(TypeError);
    const second = await quoter.quote(route);
    expect(second.rates[0]?.options).toEqual(first.rates[0]?.options);
  });
});

describe("rate quoter: metering", () => {
  it("counts calls made and saved per operation and per day (WIB), and reports them to the meter", async () => {
    const provider = fake(); // the fake's clock starts at 2026-01-15 10:00 WIB
    const { client } = shippingOn(provider);
    const added: { name: string; value: number; attributes: Record<string, unknown> | undefined }[] = [];
    const meter = {
      createCounter: (name: string) => ({
        add: (value: number, attributes?: Record<string, unknown>) => added.push({ name, value, attributes }),
      }),
      createHistogram: () => ({ record() {} }),
      createObservableGauge: () => ({ addCallback() {} }),
    };
    const day = 24 * 3_600_000;
    const quoter = createRateQuoter({
      client,
      couriers: ["jne", "pos"],
      clock: () => provider.clock.now(),
      cache: { freshMs: day, staleWhileRevalidateMs: 0, staleIfErrorMs: 0, maxAgeMs: day },
      telemetry: { meter },
    });
    await quoter.quote(route);
    await quoter.quote(route);
    await provider.clock.advance(14 * 3_600_000); // 00:00 WIB on the 16th
    await quoter.quote(route);

    const stats = quoter.stats();
    expect(stats.total).toMatchObject({ quotes: 3, providerCalls: 1, pricesFetched: 2, savedByCache: 4 });
    expect(stats.byOperation.calculateDomesticCost).toEqual(stats.total);
    expect(Object.keys(stats.byDay)).toEqual(["2026-01-15", "2026-01-16"]);
    expect(stats.byDay["2026-01-15"]?.calculateDomesticCost).toMatchObject({
      quotes: 2,
      providerCalls: 1,
      savedByCache: 2,
    });
    expect(stats.byDay["2026-01-16"]?.calculateDomesticCost).toMatchObject({
      quotes: 1,
      providerCalls: 0,
      savedByCache: 2,
    });

    const sum = (name: string, attribute?: [string, unknown]) =>
      added
        .filter((a) => a.name === name && (attribute === undefined || a.attributes?.[attribute[0]] === attribute[1]))
        .reduce((total, a) => total + a.value, 0);
    expect(sum("kirimbayar.quoter.provider_calls")).toBe(1);
    expect(sum("kirimbayar.quoter.saved", ["kirimbayar.reason", "cache_hit"])).toBe(4);
    expect(sum("kirimbayar.quoter.quotes")).toBe(3);
    expect(added.every((a) => a.attributes?.["kirimbayar.operation"] === "calculateDomesticCost")).toBe(true);
  });
});

describe("rate quoter over HTTP", () => {
  it("quotes against the fake served on loopback, a slow and a failing courier costing the others nothing", async () => {
    const provider = fake();
    const server = await provider.listen();
    try {
      provider.setCourierFault("sicepat", { delayMs: 3_000 });
      provider.setCourierFault("jnt", { status: 503 });
      const { fetch, log } = recordingFetch(provider, globalThis.fetch);
      const client = new ShippingClient({ apiKey: provider.apiKeys.shipping[0] ?? "", baseUrl: server.url, fetch });
      const quoter = createRateQuoter({ client, couriers: [...FIVE], budgetMs: 400 });
      for (const destination of [BRAGA, DARAT]) {
        const { ms, value } = await timed(() => quoter.quote({ ...route, destination }));
        expect(ms).toBeLessThan(400 + SLACK_MS);
        expect(value.rates.map((r) => r.courier)).toEqual(["jne", "pos", "anteraja"]);
        expect(value.missing.map((m) => m.courier)).toEqual(["sicepat", "jnt"]);
      }
      expect(log.calls.length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});
