// The rate quoter's parts on their own: the weight rules, the windows, the memory store, reading answers, the
// shared-store fallback, courier health, the day counters, and the account digest of the shipping clients.
import { describe, expect, it } from "vitest";
import { ShippingClient, ShippingProClient, ShippingStarterClient } from "../../src/index.js";
import { CourierHealth, SLOW_ISOLATION_MS } from "../../src/quoter/courier-health.js";
import { decodeEntry, encodeEntry } from "../../src/quoter/entry-codec.js";
import { MemoryRateStore } from "../../src/quoter/memory-store.js";
import { readOptions } from "../../src/quoter/operations.js";
import { assignOptions } from "../../src/quoter/pricer.js";
import { RateCache } from "../../src/quoter/rate-cache.js";
import { QuoterCounter } from "../../src/quoter/stats.js";
import { freshnessOf } from "../../src/quoter/windows.js";
import { exactWeight, perKilogramWeight, type RateEntry, type RateStore } from "../../src/quoter.js";
import { shippingAccountOf } from "../../src/shipping/account.js";

const entry = (fetchedAt: number): RateEntry => ({ fetchedAt, options: [] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("billed weight rules", () => {
  it("exact: every gram counts", () => {
    expect([1_000, 1_001, 1_400].map((g) => exactWeight(g, "jne"))).toEqual([1_000, 1_001, 1_400]);
  });

  it("per kilogram: rounded up to whole kilograms, at least one, with an optional tolerance", () => {
    const plain = perKilogramWeight();
    expect([1, 999, 1_000, 1_001, 1_400, 2_000].map((g) => plain(g, "jne"))).toEqual([
      1_000, 1_000, 1_000, 2_000, 2_000, 2_000,
    ]);
    const forgiving = perKilogramWeight({ toleranceGrams: 300 });
    expect([1_300, 1_301, 300, 2_299].map((g) => forgiving(g, "jne"))).toEqual([1_000, 2_000, 1_000, 2_000]);
    expect(() => perKilogramWeight({ toleranceGrams: 1_000 })).toThrow(/from 0 to 999/);
  });
});

describe("cache windows", () => {
  const windows = { freshMs: 100, revalidateUntilMs: 200, ifErrorUntilMs: 500, maxAgeMs: 500 };
  it("fresh up to freshMs, then revalidate, then if-error, never past the max age", () => {
    expect([0, 100, 101, 200, 201, 500, 501].map((age) => freshnessOf(age, windows))).toEqual([
      "fresh",
      "fresh",
      "revalidate",
      "revalidate",
      "if_error",
      "if_error",
      "expired",
    ]);
    expect(freshnessOf(150, { ...windows, revalidateUntilMs: 100, ifErrorUntilMs: 100 })).toBe("expired");
  });
});

describe("MemoryRateStore", () => {
  it("keeps at most `max` routes, dropping the least recently used, and deletes couriers and prefixes", () => {
    const store = new MemoryRateStore({ max: 2 });
    store.set("a 1", "jne", entry(1));
    store.set("a 1", "pos", entry(2));
    store.set("a 2", "jne", entry(3));
    store.get("a 1", ["jne"]);
    store.set("b 3", "jne", entry(4));
    expect(store.get("a 1", ["jne", "pos", "tiki"])).toEqual([entry(1), entry(2), undefined]);
    expect(store.get("a 2", ["jne"])).toEqual([undefined]);
    store.delete("a 1", ["jne"]);
    expect(store.get("a 1", ["jne", "pos"])).toEqual([undefined, entry(2)]);
    store.delete("a 1", ["pos"]);
    expect(store.size).toBe(1);
    store.deletePrefix("b ");
    expect(store.size).toBe(0);
  });
});

describe("reading cost answers", () => {
  it("flattens the current interface's list, the legacy nested results and the Pro international services", () => {
    expect(
      readOptions([{ name: "JNE", code: "jne", service: "REG", description: "Reguler", cost: 18_000, etd: "2-3 day" }]),
    ).toEqual([
      { courier: "", code: "jne", name: "JNE", service: "REG", description: "Reguler", cost: 18_000, etd: "2-3 day" },
    ]);
    const legacy = readOptions({
      results: [
        {
          code: "jne",
          name: "JNE",
          costs: [{ service: "OKE", description: "Ekonomis", cost: [{ value: 9_000, etd: "2-3", note: "" }] }],
        },
      ],
    });
    expect(legacy).toEqual([
      { courier: "", code: "jne", name: "JNE", service: "OKE", description: "Ekonomis", cost: 9_000, etd: "2-3" },
    ]);
    const international = readOptions({
      results: [{ code: "pos", name: "POS", costs: [{ service: "EMS", currency: "USD", cost: 31.5, etd: "" }] }],
    });
    expect(international[0]).toMatchObject({ service: "EMS", cost: 31.5, currency: "USD" });
    expect(readOptions({ results: null })).toEqual([]);
  });

  it("shares a multi-courier answer by code, and says when a code was not asked", () => {
    const option = (code: string) => ({
      courier: "",
      code,
      name: undefined,
      service: "S",
      description: undefined,
      cost: 1,
      etd: "",
    });
    const matched = assignOptions([option("JNE"), option("pos")], ["jne", "pos", "tiki"]);
    expect(matched.allMatched).toBe(true);
    expect(matched.byCourier.get("tiki")).toEqual([]);
    const unmatched = assignOptions([option("J&T"), option("jne")], ["jne", "jnt"]);
    expect(unmatched.allMatched).toBe(false);
    expect(unmatched.byCourier.get("jnt")).toEqual([]);
  });
});

describe("the compact form of an answer in a shared store", () => {
  it("round-trips every field, the courier coming from the store's field, and refuses what is not an answer", () => {
    const entry: RateEntry = {
      fetchedAt: 1_768_446_000_000,
      options: [
        {
          courier: "pos",
          code: "pos",
          name: "POS",
          service: "EMS",
          description: undefined,
          cost: 31.5,
          etd: "",
          currency: "USD",
        },
        {
          courier: "pos",
          code: "POS",
          name: undefined,
          service: "Kilat",
          description: "Pos",
          cost: 9_000,
          etd: "2-3",
          note: "n",
        },
      ],
    };
    const text = encodeEntry(entry);
    expect(text.length).toBeLessThan(JSON.stringify(entry).length);
    expect(decodeEntry(text, "pos")).toEqual(entry);
    expect(decodeEntry(encodeEntry({ fetchedAt: 5, options: [] }), "jne")).toEqual({ fetchedAt: 5, options: [] });
    expect(decodeEntry(JSON.stringify({ fetchedAt: 5, options: [] }), "jne")).toEqual({ fetchedAt: 5, options: [] });
    for (const junk of [
      "not json",
      '["x",[]]',
      "[1,[1]]",
      "[1,{}]",
      JSON.stringify({ fetchedAt: "x", options: [] }),
      7,
      null,
    ]) {
      expect(decodeEntry(junk, "jne")).toBeUndefined();
    }
  });
});

describe("RateCache beside a shared store", () => {
  function flaky() {
    const map = new Map<string, RateEntry>();
    const state = { failing: false, hanging: false, reads: 0 };
    const store: RateStore = {
      get: async (key, couriers) => {
        state.reads += 1;
        if (state.hanging) return new Promise(() => {});
        if (state.failing) throw new Error("store down");
        return couriers.map((courier) => map.get(`${key}/${courier}`));
      },
      set: async (key, courier, value) => {
        if (state.failing) throw new Error("store down");
        map.set(`${key}/${courier}`, value);
      },
      delete: async (key, couriers) => {
        for (const courier of couriers) map.delete(`${key}/${courier}`);
      },
      deletePrefix: async () => {},
      lock: async () => {
        if (state.failing) throw new Error("store down");
        return false;
      },
      unlock: async () => {},
    };
    return { store, map, state };
  }

  it("keeps a local copy of what it reads and writes, and answers from it while the store fails", async () => {
    const { store, map, state } = flaky();
    const cache = new RateCache(store, { localMax: 100, timeoutMs: 50, retryMs: 200 });
    expect(cache.shared).toBe(true);
    map.set("r/jne", entry(1));
    cache.write("r", "pos", entry(2), 60_000);
    expect(await cache.read("r", ["jne", "pos"])).toEqual([entry(1), entry(2)]);

    state.failing = true;
    expect(await cache.read("r", ["jne", "pos", "tiki"])).toEqual([entry(1), entry(2), undefined]);
    expect(cache.degraded).toBe(true);
    const readsWhileDown = state.reads;
    expect(await cache.read("r", ["jne"])).toEqual([entry(1)]);
    expect(state.reads).toBe(readsWhileDown); // left alone for retryMs
    expect(await cache.lock("r", "jne", 1_000)).toBe(true); // down: ask the provider here rather than wait

    state.failing = false;
    await sleep(220);
    map.set("r/jne", entry(5));
    expect(await cache.read("r", ["jne"])).toEqual([entry(5)]);
    expect(cache.degraded).toBe(false);
    expect(await cache.lock("r", "jne", 1_000)).toBe(false);
  });

  it("gives up on a store that does not answer within its time limit", async () => {
    const { store, state } = flaky();
    const cache = new RateCache(store, { localMax: 100, timeoutMs: 30, retryMs: 1_000 });
    cache.write("r", "jne", entry(7), 60_000);
    state.hanging = true;
    const started = performance.now();
    expect(await cache.read("r", ["jne"])).toEqual([entry(7)]);
    expect(performance.now() - started).toBeLessThan(500);
    expect(cache.degraded).toBe(true);
  });

  it("uses a memory store as it is, synchronously and without a copy", () => {
    const memory = new MemoryRateStore();
    const cache = new RateCache(memory, { localMax: 10, timeoutMs: 50, retryMs: 1_000 });
    cache.write("r", "jne", entry(1), 60_000);
    expect(cache.read("r", ["jne"])).toEqual([entry(1)]);
    expect(cache.shared).toBe(false);
  });
});

describe("CourierHealth", () => {
  it("isolates a slow or failing courier until it answers fast; cools a failing one down, longer if the provider asks", () => {
    const health = new CourierHealth(10_000);
    health.isolate("sicepat", 0);
    expect(health.isIsolated("sicepat", SLOW_ISOLATION_MS - 1)).toBe(true);
    expect(health.isIsolated("sicepat", SLOW_ISOLATION_MS)).toBe(false);
    health.isolate("sicepat", 0);
    health.answered("sicepat", true);
    expect(health.isIsolated("sicepat", 1)).toBe(false);

    health.failed("jnt", { status: 503 }, 0);
    expect(health.coolingError("jnt", 9_999)).toEqual({ until: 10_000, error: { status: 503 } });
    expect(health.coolingError("jnt", 10_000)).toBeUndefined();
    expect(health.isIsolated("jnt", 10_000)).toBe(true);
    health.failed("pos", { retryAfterMs: 60_000 }, 0);
    expect(health.coolingError("pos", 59_999)).toBeDefined();
    expect(new CourierHealth(0).coolingError("x", 0)).toBeUndefined();
  });
});

describe("QuoterCounter", () => {
  it("counts per day in Western Indonesia Time, keeps 31 days, and follows a clock that goes back", () => {
    let now = Date.UTC(2026, 0, 15, 16, 59, 59, 999); // 23:59:59.999 WIB on the 15th
    const counter = new QuoterCounter("calculateDomesticCost", () => now, undefined);
    counter.call();
    now += 1; // 00:00 WIB on the 16th
    counter.call();
    counter.saved("cache_hit", 3);
    expect(Object.keys(counter.snapshot().byDay)).toEqual(["2026-01-15", "2026-01-16"]);
    expect(counter.snapshot().byDay["2026-01-16"]?.calculateDomesticCost).toMatchObject({
      providerCalls: 1,
      savedByCache: 3,
    });
    now -= 2;
    counter.call();
    expect(counter.snapshot().byDay["2026-01-15"]?.calculateDomesticCost?.providerCalls).toBe(2);
    for (let day = 0; day < 40; day++) {
      now += 24 * 3_600_000;
      counter.call();
    }
    const days = Object.keys(counter.snapshot().byDay);
    expect(days).toHaveLength(31);
    expect(counter.snapshot().total.providerCalls).toBe(43);
  });
});

describe("the shipping clients' account digest", () => {
  const base = { apiKey: "secret-key-1", baseUrl: "https://shipping.example.id" };
  it("tells accounts apart by key, base URL and interface, without holding or showing the key", async () => {
    const digest = (client: object) => shippingAccountOf(client)?.fingerprint();
    const a = await digest(new ShippingClient(base));
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(await digest(new ShippingClient({ ...base, apiKey: " secret-key-1 " }))).toBe(a);
    expect(await digest(new ShippingClient({ ...base, apiKey: "secret-key-2" }))).not.toBe(a);
    expect(await digest(new ShippingClient({ ...base, baseUrl: "https://sandbox.example.id" }))).not.toBe(a);
    expect(await digest(new ShippingProClient(base))).not.toBe(a);
    expect(shippingAccountOf(new ShippingStarterClient(base))?.interface).toBe("starter");
    const client = new ShippingClient(base);
    expect(Object.keys(client)).toEqual([]);
    expect(JSON.stringify(client)).not.toContain("secret");
    expect(shippingAccountOf({})).toBeUndefined();
  });
});
