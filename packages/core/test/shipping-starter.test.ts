import { describe, expect, it } from "vitest";
import { AuthenticationError, type RequestValidationError } from "../src/errors/index.js";
import {
  SHIPPING_STARTER_PATHS,
  ShippingStarterClient,
  type ShippingStarterClientOptions,
} from "../src/shipping/index.js";
import { caught, fakeFetch, type Reply, rajaongkir, testTiming } from "./shipping-support.js";

const KEY = "sentinel-starter-key-0b9e";
const BASE = "https://starter.example.id";

const client = (replies: Reply[], extra: Partial<ShippingStarterClientOptions> = {}) => {
  const fake = fakeFetch(...replies);
  return {
    ...fake,
    starter: new ShippingStarterClient({ apiKey: KEY, baseUrl: BASE, fetch: fake.fetch, ...testTiming, ...extra }),
  };
};

describe("ShippingStarterClient", () => {
  it("lists provinces and cities under /starter", async () => {
    const { starter, sent } = client([
      { body: rajaongkir({ query: [], results: [{ province_id: "5", province: "DI Yogyakarta" }] }) },
      {
        body: rajaongkir({
          query: { id: "501" },
          results: { city_id: "501", city_name: "Yogyakarta", postal_code: 55111 },
        }),
      },
    ]);
    expect((await starter.listProvinces()).data).toEqual([{ province_id: "5", province: "DI Yogyakarta" }]);
    expect((await starter.listCities({ id: 501, province: "5" })).data).toEqual([
      { city_id: "501", city_name: "Yogyakarta", postal_code: "55111" },
    ]);
    expect(sent.map((r) => `${r.method} ${r.path}${r.url.search}`)).toEqual([
      "GET /starter/province",
      "GET /starter/city?id=501&province=5",
    ]);
    expect(sent.every((r) => r.headers.get("key") === KEY)).toBe(true);
  });

  it("posts the cost form for jne, pos and tiki", async () => {
    const results = [
      {
        code: "jne",
        name: "JNE",
        costs: [{ service: "REG", description: "Layanan Reguler", cost: [{ value: 9000, etd: "2-3", note: "" }] }],
      },
    ];
    const { starter, sent } = client([
      {
        body: rajaongkir({
          query: {},
          origin_details: { city_id: "501" },
          destination_details: { city_id: "114" },
          results,
        }),
      },
    ]);
    const { data } = await starter.calculateCost({
      origin: "501",
      destination: 114,
      weight: 1700,
      courier: ["JNE", "pos", "tiki"],
    });
    expect(sent[0]!.method).toBe("POST");
    expect(sent[0]!.path).toBe("/starter/cost");
    expect(sent[0]!.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    expect(sent[0]!.body).toBe("origin=501&destination=114&weight=1700&courier=jne%3Apos%3Atiki");
    expect(data.results[0]!.costs[0]!.cost[0]!.value).toBe(9000);
    expect(data.destination_details).toEqual({ city_id: "114" });
  });

  it.each([["sicepat"], [["jne", "jnt"]], ["jne:wahana"]])(
    "sends courier %j as given: the provider, not the client, knows what the account may price",
    async (courier) => {
      const { starter, fetch } = client([{ body: rajaongkir({ results: [] }) }]);
      await starter.calculateCost({ origin: 1, destination: 2, weight: 1, courier });
      expect(fetch).toHaveBeenCalledTimes(1);
    },
  );

  it("lists every failing field", async () => {
    const { starter, fetch } = client([{ body: rajaongkir({ results: [] }) }]);
    const error = await caught(() => starter.calculateCost({ origin: "", destination: 0, weight: 2.5, courier: "" }));
    expect((error as RequestValidationError).issues.map((i) => i.path).sort()).toEqual([
      "courier",
      "destination",
      "origin",
      "weight",
    ]);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("maps an invalid key to AuthenticationError without leaking it", async () => {
    const { starter, sent } = client([
      {
        status: 400,
        body: rajaongkir({ query: { key: KEY } }, 400, "Invalid key. API key tidak ditemukan di database RajaOngkir."),
      },
    ]);
    const error = await caught(() => starter.listProvinces());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(JSON.stringify(error)).not.toContain(KEY);
    expect(sent).toHaveLength(1);
  });

  it("sends the key as a form field with keyPlacement: 'param' and caches lookups when asked", async () => {
    const { starter, sent } = client([{ body: rajaongkir({ results: [] }) }], { keyPlacement: "param", cache: {} });
    await starter.listProvinces();
    await starter.listProvinces();
    await starter.calculateCost({ origin: 1, destination: 2, weight: 1, courier: "pos" });
    expect(sent).toHaveLength(2);
    expect(sent[0]!.query).toEqual({ key: KEY });
    expect(sent[1]!.body).toBe(`origin=1&destination=2&weight=1&courier=pos&key=${KEY}`);
    expect(SHIPPING_STARTER_PATHS.calculateCost).toBe("/starter/cost");
  });
});
