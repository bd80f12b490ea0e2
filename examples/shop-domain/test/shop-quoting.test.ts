// The shop's checkout quotes through its rate quoter: prices shared by two shop instances through Redis, and the
// shop's backup rate for a courier without a price in time, at quote and at order time.
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import { createFakeProvider, type FakeProvider } from "@kirimbayar/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadShopConfig } from "../src/config.js";
import { createShopRuntime, type ShopRuntime } from "../src/runtime.js";
import { fakeProviderEnv } from "./support/shop-flow.js";

const BRAGA = 230_201;
const cart = {
  customer: { name: "Sari", email: "sari@example.test", phone: "081234567890" },
  items: [{ name: "Kopi Gayo 1 kg", quantity: 1, price: 200_000, weight: 1_000 }],
  destination_id: BRAGA,
};

let redis: TestRedisServer;
const running: ShopRuntime[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  for (const runtime of running) await runtime.close();
  await redis?.stop();
});

async function shopOn(provider: FakeProvider, env: Record<string, string> = {}): Promise<ShopRuntime> {
  const config = loadShopConfig({
    ...fakeProviderEnv(provider, provider.baseUrl),
    KIRIMBAYAR_ORDERS_BASE_URL: "",
    KIRIMBAYAR_ORDERS_API_KEY: "",
    SHOP_RECONCILE_EVERY_MS: "0",
    ...env,
  });
  const runtime = await createShopRuntime(config, { fetch: provider.fetch, publicBaseUrl: () => "http://127.0.0.1:1" });
  running.push(runtime);
  return runtime;
}

const costCalls = (provider: FakeProvider) =>
  provider.requests.filter((request) => request.path === "/api/v1/calculate/domestic-cost").length;

describe("the shop's quotes", () => {
  it("share their prices between two shop instances through Redis (REDIS_URL)", async () => {
    const provider = createFakeProvider();
    const first = await shopOn(provider, { REDIS_URL: redis.url });
    const second = await shopOn(provider, { REDIS_URL: redis.url });
    expect([first.quoteCache, second.quoteCache]).toEqual(["redis", "redis"]);
    const fromProvider = await first.shop.quote({ destination_id: BRAGA, weight: 1_300 });
    expect(fromProvider.options.every((o) => o.source === "provider")).toBe(true);
    const calls = costCalls(provider);
    const fromRedis = await second.shop.quote({ destination_id: BRAGA, weight: 1_300 });
    expect(costCalls(provider)).toBe(calls);
    expect(fromRedis.options.map((o) => [o.courier_code, o.service, o.cost, o.source])).toEqual(
      fromProvider.options.map((o) => [o.courier_code, o.service, o.cost, "cache"]),
    );
  });

  it("show the backup rate for a courier without a price in time, unbadged, and sell it at that rate, noted on the order", async () => {
    const provider = createFakeProvider();
    provider.setCourierFault("pos", { status: 503 });
    const { shop, quoteCache } = await shopOn(provider, { SHOP_BACKUP_RATE: "35000", SHOP_QUOTE_BUDGET_MS: "500" });
    expect(quoteCache).toBe("memory");
    const quote = await shop.quote({ destination_id: BRAGA, weight: 1_000 });
    expect(quote.missing).toEqual([]);
    const backup = quote.options.filter((o) => o.source === "backup");
    expect(backup).toEqual([
      expect.objectContaining({
        courier_code: "pos",
        service: "BACKUP",
        cost: 35_000,
        fetched_at: null,
        cheapest: false,
        fastest: false,
      }),
    ]);
    expect(quote.options.filter((o) => o.cheapest)).toHaveLength(1);

    const { order } = await shop.createOrder({ ...cart, courier: "pos", service: "BACKUP" });
    expect(order.shipping).toMatchObject({ courier_code: "pos", service: "BACKUP", cost: 35_000 });
    expect(order.total).toBe(235_000);
    expect(order.events.map((e) => e.type)).toContain("shipping.backup_rate");
  });

  it("refuse to sell a courier without a price and without a backup rate, naming why", async () => {
    const provider = createFakeProvider();
    provider.setCourierFault("anteraja", { refuse: true });
    provider.setCourierFault("tiki", { delayMs: 1_500 });
    const { shop } = await shopOn(provider, { SHOP_COURIERS: "jne:tiki:anteraja", SHOP_QUOTE_BUDGET_MS: "200" });
    const quote = await shop.quote({ destination_id: BRAGA, weight: 1_000 });
    expect(quote.missing).toEqual([
      { courier_code: "tiki", reason: "pending" },
      { courier_code: "anteraja", reason: "not_served" },
    ]);
    await expect(shop.createOrder({ ...cart, courier: "anteraja", service: "REG" })).rejects.toMatchObject({
      code: "not_found",
      message: "No courier serves this route",
    });
    await expect(shop.createOrder({ ...cart, courier: "tiki", service: "REG" })).rejects.toMatchObject({
      code: "provider_error",
      message: "Courier tiki has no price right now (pending): try again in a moment",
    });
  });
});
