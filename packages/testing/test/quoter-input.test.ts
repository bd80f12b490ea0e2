// Bad input to the rate quoter: a typed error naming the problem, before the cache or the provider is asked.
import { ConfigurationError, RequestValidationError, type ShippingClient } from "@kirimbayar/core";
import { createRateQuoter, memoryRateStore, type RateQuoterOptions } from "@kirimbayar/core/quoter";
import { describe, expect, it } from "vitest";
import { fake } from "./helpers.js";
import { BRAGA, GAMBIR, shippingOn } from "./quoter-support.js";

const route = { origin: GAMBIR, destination: BRAGA, weight: 1_000 };

describe("rate quoter: bad options are refused when it is built", () => {
  const provider = fake();
  const { client } = shippingOn(provider);
  const build = (options: Partial<RateQuoterOptions<ShippingClient>>) => () =>
    createRateQuoter({ client, couriers: ["jne", "pos"], ...options } as RateQuoterOptions<ShippingClient>);
  const refused = (options: Partial<RateQuoterOptions<ShippingClient>>, option: string, message: RegExp) => {
    let error: unknown;
    try {
      build(options)();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ option, code: "configuration" });
    expect((error as Error).message).toMatch(message);
  };

  it("couriers: empty, unsendable or listed twice", () => {
    refused({ couriers: [] }, "couriers", /non-empty list/);
    refused({ couriers: ["jne", "JNE "] }, "couriers", /lists "jne" twice/);
    refused({ couriers: ["jne:pos"] }, "couriers", /couriers\[0\].*without ':'/);
    refused({ couriers: ["j ne"] }, "couriers", /whitespace/);
  });

  it("budgets and time limits of 0 or below, or beyond their range", () => {
    refused({ budgetMs: 0 }, "budgetMs", /from 1 to 60000/);
    refused({ budgetMs: -5 }, "budgetMs", /from 1/);
    refused({ budgetMs: 1.5 }, "budgetMs", /integer/);
    refused({ callTimeoutMs: 0 }, "callTimeoutMs", /from 1/);
    refused({ failureCooldownMs: -1 }, "failureCooldownMs", /from 0/);
    refused({ batching: { hedgeMs: 0 } }, "batching.hedgeMs", /from 1/);
    refused({ batching: { hedgeMs: 20_000 }, callTimeoutMs: 10_000 }, "batching.hedgeMs", /to 10000/);
  });

  it("cache windows out of range, or ending past the maximum age", () => {
    refused({ cache: { freshMs: 0 } }, "cache.freshMs", /from 1/);
    refused({ cache: { staleWhileRevalidateMs: -1 } }, "cache.staleWhileRevalidateMs", /from 0/);
    refused({ cache: { maxAgeMs: 8 * 24 * 3_600_000 } }, "cache.maxAgeMs", /to 604800000/);
    refused({ cache: { freshMs: 60_000, maxAgeMs: 30_000 } }, "cache.freshMs", /past cache.maxAgeMs/);
    refused(
      { cache: { freshMs: 60_000, staleWhileRevalidateMs: 60_000, staleIfErrorMs: 0, maxAgeMs: 100_000 } },
      "cache.staleWhileRevalidateMs",
      /never served past its maximum age/,
    );
    refused(
      { cache: { freshMs: 60_000, staleWhileRevalidateMs: 0, staleIfErrorMs: 50_000, maxAgeMs: 100_000 } },
      "cache.staleIfErrorMs",
      /past cache.maxAgeMs/,
    );
    refused({ cache: { localMax: 0 } }, "cache.localMax", /from 1/);
    refused({ cache: { storeTimeoutMs: 0 } }, "cache.storeTimeoutMs", /from 1/);
    refused({ cache: { store: { get: () => [] } as never } }, "cache.store", /set\(\) method/);
    refused(
      {
        cache: {
          store: {
            get: () => [],
            set() {},
            delete() {},
            deletePrefix() {},
            lock: async () => true,
          },
        },
      },
      "cache.store",
      /both lock\(\) and unlock\(\)/,
    );
    expect(() => memoryRateStore({ max: 0 })).toThrow(ConfigurationError);
  });

  it("a client that is not a shipping client, an operation it does not have, backup rates that are not rupiah", () => {
    refused({ client: {} as ShippingClient }, "client", /ShippingClient, ShippingProClient or ShippingStarterClient/);
    refused(
      { operation: "calculateCost" as never },
      "operation",
      /calculateDomesticCost, calculateDistrictDomesticCost/,
    );
    refused({ backup: { flat: { cost: 0 } } }, "backup.flat", /positive integer number of rupiah/);
    refused({ backup: { flat: { cost: 12_500.5 } } }, "backup.flat", /positive integer/);
    refused({ backup: { byDestination: { "68423": { cost: -1 } } } }, "backup.byDestination.68423", /positive integer/);
    refused({ account: "two words" }, "account", /without whitespace/);
  });
});

describe("rate quoter: bad quotes are refused before anything is asked", () => {
  async function refusedQuote(quote: unknown, paths: string[]) {
    const provider = fake();
    const { client, log } = shippingOn(provider);
    const quoter = createRateQuoter({ client, couriers: ["jne", "sicepat", "pos"] });
    const error = await quoter.quote(quote as typeof route).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error).toMatchObject({ code: "request_validation", operation: "quote" });
    expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual(paths);
    expect(log.calls).toEqual([]);
    expect(provider.requests).toEqual([]);
    expect(quoter.stats().total.quotes).toBe(0);
    return error as RequestValidationError;
  }

  it("unknown or duplicate couriers", async () => {
    const unknown = await refusedQuote({ ...route, couriers: ["jne", "paxel"] }, ["couriers.1"]);
    expect(unknown.issues[0]?.message).toBe('unknown courier "paxel": this quoter prices jne, sicepat, pos');
    const twice = await refusedQuote({ ...route, couriers: ["pos", " POS"] }, ["couriers.1"]);
    expect(twice.issues[0]?.message).toMatch(/listed twice/);
    await refusedQuote({ ...route, couriers: [] }, ["couriers"]);
  });

  it("a weight of 0 or below, or not whole grams", async () => {
    for (const weight of [0, -100, 1_000.5, "1000", Number.NaN]) {
      const error = await refusedQuote({ ...route, weight }, ["weight"]);
      expect(error.message).toMatch(/weight: must be an integer number of grams above 0/);
    }
  });

  it("a budget of 0 or below; ids that cannot be sent; several problems at once", async () => {
    await refusedQuote({ ...route, budgetMs: 0 }, ["budgetMs"]);
    await refusedQuote({ ...route, budgetMs: -1 }, ["budgetMs"]);
    await refusedQuote({ ...route, origin: "" }, ["origin"]);
    await refusedQuote({ ...route, destination: "12 34" }, ["destination"]);
    await refusedQuote({ origin: 0, weight: 0, couriers: ["dhl"] }, ["origin", "destination", "weight", "couriers.0"]);
    await refusedQuote(null, [""]);
  });

  it("the operation's own fields, checked with the client's schema", async () => {
    await refusedQuote({ ...route, price: 5 }, ["price"]);
    await refusedQuote({ ...route, colour: "red" }, [""]);
  });

  it("an invalidation with bad input is refused the same way", async () => {
    const provider = fake();
    const { client } = shippingOn(provider);
    const quoter = createRateQuoter({ client, couriers: ["jne"] });
    await expect(quoter.invalidate({ ...route, weight: 0 })).rejects.toBeInstanceOf(RequestValidationError);
  });
});
