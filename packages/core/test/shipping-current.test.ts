import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  ApiError,
  AuthenticationError,
  InvalidCourierError,
  MissingParameterError,
  NoCourierServiceError,
  NotFoundError,
  RequestValidationError,
} from "../src/errors/index.js";
import { parseEtd } from "../src/helpers/index.js";
import {
  type LookupCacheOptions,
  SHIPPING_PATHS,
  ShippingClient,
  type ShippingClientOptions,
  sortManifest,
} from "../src/shipping/index.js";
import { caught, fakeFetch, meta, type Reply, testTiming } from "./shipping-support.js";

const KEY = "sentinel-shipping-key-7f3a9";
const BASE = "https://shipping.example.id";

const client = (replies: Reply[], extra: Partial<ShippingClientOptions> = {}) => {
  const fake = fakeFetch(...replies);
  return {
    ...fake,
    shipping: new ShippingClient({ apiKey: KEY, baseUrl: BASE, fetch: fake.fetch, ...testTiming, ...extra }),
  };
};

const destination = {
  id: 31555,
  label: "SUKAJADI, SUKAJADI, BANDUNG, JAWA BARAT, 40162",
  province_name: "JAWA BARAT",
  city_name: "BANDUNG",
  district_name: "SUKAJADI",
  subdistrict_name: "SUKAJADI",
  zip_code: "40162",
};

const costOptions = [
  {
    name: "Jalur Nugraha Ekakurir (JNE)",
    code: "jne",
    service: "REG",
    description: "Layanan Reguler",
    cost: 18000,
    etd: "2-3 day",
  },
  { name: "POS Indonesia (POS)", code: "pos", service: "Pos Reguler", description: "240", cost: "16500", etd: "" },
  { name: "J&T", code: "J&T", service: "EZ", description: "Regular", cost: 17000, etd: "1 - 2 days", extra: "kept" },
];

describe("ShippingClient requests", () => {
  it("searches domestic destinations with a GET and query parameters", async () => {
    const { shipping, sent } = client([{ body: meta(200, "Success Get Domestic Destinations", [destination]) }]);
    const result = await shipping.searchDomesticDestinations({ search: "sukajadi", limit: 5, offset: 10 });
    expect(sent).toHaveLength(1);
    const [request] = sent;
    expect(request!.method).toBe("GET");
    expect(request!.url.origin).toBe(BASE);
    expect(request!.path).toBe("/api/v1/destination/domestic-destination");
    expect(request!.url.search).toBe("?search=sukajadi&limit=5&offset=10");
    expect(request!.headers.get("key")).toBe(KEY);
    expect(request!.headers.get("content-type")).toBeNull();
    expect(request!.body).toBeUndefined();
    expect(result.data).toEqual([destination]);
    expect(result.status).toBe(200);
    expect(result.message).toBe("Success Get Domestic Destinations");
    expect(result.code).toBe(200);
    expect(result.raw).toEqual(meta(200, "Success Get Domestic Destinations", [destination]));
  });

  it("leaves optional query parameters out and trims the search", async () => {
    const { shipping, sent } = client([{ body: meta(200, "OK", [{ country_id: "108", country_name: "Malaysia" }]) }]);
    const { data } = await shipping.searchInternationalDestinations({ search: "  malay " });
    expect(sent[0]!.path).toBe("/api/v1/destination/international-destination");
    expect(sent[0]!.url.search).toBe("?search=malay");
    expect(data).toEqual([{ country_id: "108", country_name: "Malaysia" }]);
  });

  it("walks the province → city → district → subdistrict hierarchy", async () => {
    const { shipping, sent } = client([
      { body: meta(200, "OK", [{ id: 12, name: "JAWA BARAT" }]) },
      { body: meta(200, "OK", [{ id: 55, name: "BANDUNG", zip_code: 0 }]) },
      { body: meta(200, "OK", [{ id: "1360", name: "SUKAJADI", zip_code: "0" }]) },
      { body: meta(200, "OK", [{ id: 17400, name: "SUKAWARNA", zip_code: "40164" }]) },
    ]);
    expect((await shipping.listProvinces()).data).toEqual([{ id: 12, name: "JAWA BARAT" }]);
    expect((await shipping.listCities(12)).data).toEqual([{ id: 55, name: "BANDUNG", zip_code: "0" }]);
    expect((await shipping.listDistricts("55")).data[0]?.id).toBe("1360");
    expect((await shipping.listSubdistricts(1360)).data[0]?.zip_code).toBe("40164");
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /api/v1/destination/province",
      "GET /api/v1/destination/city/12",
      "GET /api/v1/destination/district/55",
      "GET /api/v1/destination/sub-district/1360",
    ]);
    expect(sent.every((r) => r.headers.get("key") === KEY && r.url.search === "")).toBe(true);
  });

  it("URL-encodes ids in paths", async () => {
    const { shipping, sent } = client([{ body: meta(200, "OK", []) }]);
    await shipping.listCities("JB/01");
    expect(sent[0]!.url.pathname).toBe("/api/v1/destination/city/JB%2F01");
  });

  it.each([
    ["calculateDomesticCost", "/api/v1/calculate/domestic-cost"],
    ["calculateDistrictDomesticCost", "/api/v1/calculate/district/domestic-cost"],
  ] as const)("%s posts a form with couriers joined by ':'", async (method, path) => {
    const { shipping, sent } = client([{ body: meta(200, "Success Calculate Domestic Shipping cost", costOptions) }]);
    const { data } = await shipping[method]({
      origin: 31555,
      destination: "68423",
      weight: 1000,
      courier: ["JNE", "pos", "jnt"],
      price: "lowest",
    });
    const [request] = sent;
    expect(request!.method).toBe("POST");
    expect(request!.path).toBe(path);
    expect(request!.url.search).toBe("");
    expect(request!.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    expect(request!.headers.get("key")).toBe(KEY);
    expect(request!.body).toBe("origin=31555&destination=68423&weight=1000&courier=jne%3Apos%3Ajnt&price=lowest");
    expect(data.map((o) => [o.code, o.service, o.cost, o.etd])).toEqual([
      ["jne", "REG", 18000, "2-3 day"],
      ["pos", "Pos Reguler", 16500, ""],
      ["J&T", "EZ", 17000, "1 - 2 days"],
    ]);
    expect(data[2]).toMatchObject({ extra: "kept" });
    expect(parseEtd(data[0]!.etd)).toMatchObject({ min: 2, max: 3, unit: "day" });
  });

  it("calculates international cost and keeps the currency", async () => {
    const { shipping, sent } = client([
      {
        body: meta(200, "OK", [
          { name: "POS", code: "pos", service: "R LN", cost: 292000.5, etd: "", currency: "IDR" },
        ]),
      },
    ]);
    const { data } = await shipping.calculateInternationalCost({
      origin: 31555,
      destination: "108",
      weight: 500,
      courier: "pos",
    });
    expect(sent[0]!.path).toBe("/api/v1/calculate/international-cost");
    expect(sent[0]!.body).toBe("origin=31555&destination=108&weight=500&courier=pos");
    expect(data[0]).toMatchObject({ currency: "IDR", cost: 292000.5 });
  });

  it("tracks a waybill with query parameters and no body", async () => {
    const waybill = {
      delivered: true,
      summary: { courier_code: "jne", waybill_number: "CGK123", status: "DELIVERED" },
      details: { waybill_date: "2026-01-02", shipper_name: "TOKO" },
      delivery_status: { status: "DELIVERED", pod_receiver: "BUDI", pod_date: "2026-01-04", pod_time: "10:00" },
      manifest: [
        {
          manifest_code: "3",
          manifest_description: "DELIVERED",
          manifest_date: "2026-01-04",
          manifest_time: "10:00",
          city_name: "BANDUNG",
        },
        {
          manifest_code: "1",
          manifest_description: "PICKED UP",
          manifest_date: "2026-01-02",
          manifest_time: "09:00",
          city_name: "JAKARTA",
        },
        {
          manifest_code: "2",
          manifest_description: "IN TRANSIT",
          manifest_date: "2026-01-02",
          manifest_time: "21:30",
          city_name: null,
        },
      ],
    };
    const { shipping, sent } = client([{ body: meta(200, "Success Tracking", waybill) }]);
    const { data } = await shipping.trackWaybill({ awb: " CGK123 ", courier: "JNE", last_phone_number: "12345" });
    expect(sent[0]!.method).toBe("POST");
    expect(sent[0]!.path).toBe("/api/v1/track/waybill");
    expect(sent[0]!.url.search).toBe("?awb=CGK123&courier=jne&last_phone_number=12345");
    expect(sent[0]!.body).toBeUndefined();
    expect(data.delivered).toBe(true);
    expect(data.delivery_status?.pod_receiver).toBe("BUDI");
    expect(sortManifest(data.manifest).map((m) => m.manifest_code)).toEqual(["1", "2", "3"]);
  });

  it("accepts a null manifest and a string flag", async () => {
    const { shipping } = client([{ body: meta(200, "OK", { delivered: "false", manifest: null }) }]);
    const { data } = await shipping.trackWaybill({ awb: "X1", courier: "sicepat" });
    expect(data).toMatchObject({ delivered: false, manifest: [] });
  });

  it("honours path overrides", async () => {
    const { shipping, sent } = client([{ body: meta(200, "OK", []) }], {
      paths: { listProvinces: "/v2/provinces", listCities: "/v2/cities/{province_id}" },
    });
    await shipping.listProvinces();
    await shipping.listCities(9);
    expect(sent.map((r) => r.path)).toEqual(["/v2/provinces", "/v2/cities/9"]);
    expect(SHIPPING_PATHS.listSubdistricts).toBe("/api/v1/destination/sub-district/{district_id}");
  });
});

describe("ShippingClient error tables", () => {
  it.each([
    [404, "Domestic Destinations Data not found", "searchDomesticDestinations"],
    [200, "Domestic Destinations Data not found", "searchDomesticDestinations"],
    [404, "International Destinations Data not found", "searchInternationalDestinations"],
  ] as const)("HTTP %i with meta 404 %j gives an empty list", async (status, message, method) => {
    const body = { meta: { message, code: 404, status: "error" }, data: null };
    const { shipping, sent } = client([{ status, body }]);
    const result = await shipping[method]({ search: "zzzz" });
    expect(result.data).toEqual([]);
    expect(result.status).toBe(status);
    expect(result.raw).toEqual(body);
    expect(sent).toHaveLength(1);
  });

  it("an empty hierarchy level is an empty list", async () => {
    const { shipping } = client([{ status: 404, body: meta(404, "Sub District Data not found") }]);
    expect((await shipping.listSubdistricts(1)).data).toEqual([]);
  });

  it("a 404 that is not the provider's 'not found' (wrong base URL) still throws", async () => {
    const { shipping } = client([{ status: 404, body: "<html>Not Found</html>" }]);
    const error = await caught(() => shipping.searchDomesticDestinations({ search: "bandung" }));
    expect(error).toBeInstanceOf(NotFoundError);
  });

  it("422 Parameter Missing on a search → MissingParameterError, not retried", async () => {
    const { shipping, sent } = client([{ status: 422, body: meta(422, "Parameter Missing") }]);
    const error = await caught(() => shipping.searchDomesticDestinations({ search: "x" }));
    expect(error).toBeInstanceOf(MissingParameterError);
    expect(error).toMatchObject({
      status: 422,
      providerCode: 422,
      providerMessage: "Parameter Missing",
      retryable: false,
    });
    expect(sent).toHaveLength(1);
  });

  it("500 on a search is an ApiError retried up to maxRetries", async () => {
    const { shipping, sent } = client([{ status: 500, body: meta(500, "") }], { maxRetries: 2 });
    const error = await caught(() => shipping.searchDomesticDestinations({ search: "x" }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 500, retryable: true });
    expect(sent).toHaveLength(3);
  });

  it("a search retried after a 503 succeeds", async () => {
    const { shipping, sent } = client([
      { status: 503, body: meta(503, "busy") },
      { body: meta(200, "OK", [destination]) },
    ]);
    expect((await shipping.searchDomesticDestinations({ search: "x" })).data).toHaveLength(1);
    expect(sent).toHaveLength(2);
  });

  it.each([400, 200])(
    "HTTP %i with 'Calculate Domestic Shipping Cost not found' → NoCourierServiceError, never retried",
    async (status) => {
      const { shipping, sent } = client([{ status, body: meta(400, "Calculate Domestic Shipping Cost not found") }], {
        maxRetries: 5,
      });
      const error = await caught(() =>
        shipping.calculateDomesticCost({ origin: 1, destination: 2, weight: 1000, courier: "jne" }),
      );
      expect(error).toBeInstanceOf(NoCourierServiceError);
      expect(error).toMatchObject({ code: "no_courier_service", retryable: false, providerCode: 400 });
      expect((error as Error).message).toMatch(/no courier serves this route/i);
      expect(sent).toHaveLength(1);
    },
  );

  it("the district cost maps 'not found' the same way", async () => {
    const { shipping } = client([
      { status: 400, body: meta(400, "Calculate District Domestic Shipping Cost Not Found") },
    ]);
    const error = await caught(() =>
      shipping.calculateDistrictDomesticCost({ origin: 1, destination: 2, weight: 1, courier: "jne" }),
    );
    expect(error).toBeInstanceOf(NoCourierServiceError);
  });

  it("400 Missing Params → MissingParameterError", async () => {
    const { shipping, sent } = client([{ status: 400, body: meta(400, "Missing Params") }]);
    const error = await caught(() =>
      shipping.calculateDomesticCost({ origin: 1, destination: 2, weight: 1, courier: "jne" }),
    );
    expect(error).toBeInstanceOf(MissingParameterError);
    expect(sent).toHaveLength(1);
  });

  it("422 Invalid Courier → InvalidCourierError (also with HTTP 200)", async () => {
    for (const status of [422, 200]) {
      const { shipping, sent } = client([{ status, body: meta(422, "Invalid Courier") }]);
      const error = await caught(() =>
        shipping.calculateDomesticCost({ origin: 1, destination: 2, weight: 1, courier: "kurirbaru" }),
      );
      expect(error).toBeInstanceOf(InvalidCourierError);
      expect(error).toMatchObject({ code: "invalid_courier", status, providerCode: 422, method: "POST" });
      expect(sent).toHaveLength(1);
    }
  });

  it("401 is an AuthenticationError naming the header, never the key", async () => {
    const body = {
      meta: { message: `Invalid API key ${KEY}`, code: 401, status: "error" },
      data: null,
      echo: { key: KEY },
    };
    const { shipping } = client([{ status: 401, body }]);
    const error = await caught(() => shipping.listProvinces());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ credential: "header key" });
    const dump = [
      (error as Error).message,
      JSON.stringify(error),
      inspect(error, { depth: 10 }),
      (error as ApiError).rawBody,
    ];
    for (const text of dump) expect(text).not.toContain(KEY);
  });
});

describe("ShippingClient input validation", () => {
  it("lists every failing field of a cost form and sends nothing", async () => {
    const { shipping, fetch } = client([{ body: meta(200, "OK", []) }]);
    const error = await caught(() =>
      shipping.calculateDomesticCost({
        origin: -1,
        destination: "",
        weight: 1.5,
        courier: ["jne", "pos tiki"],
        price: "",
      }),
    );
    expect(error).toBeInstanceOf(RequestValidationError);
    const paths = (error as RequestValidationError).issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(["origin", "destination", "weight", "courier.1", "price"]));
    expect(fetch).not.toHaveBeenCalled();
  });

  it.each([
    [{ origin: 1, destination: 2, weight: 0, courier: "jne" }, "weight"],
    [{ origin: 1, destination: 2, weight: -5, courier: "jne" }, "weight"],
    [{ origin: 1, destination: 2, weight: 100, courier: "" }, "courier"],
    [{ origin: 1, destination: 2, weight: 100, courier: [] }, "courier"],
    [{ origin: 1, destination: 2, weight: 100, courier: "jne::pos" }, "courier"],
    [{ origin: 1, destination: 2, weight: 100, courier: "jne", extra: 1 }, ""],
  ])("refuses %j", async (input, path) => {
    const { shipping, fetch } = client([{ body: meta(200, "OK", []) }]);
    const error = await caught(() => shipping.calculateDomesticCost(input as never));
    expect((error as RequestValidationError).issues.map((i) => i.path)).toContain(path);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("refuses bad tracking and search input", async () => {
    const { shipping, fetch } = client([{ body: meta(200, "OK", []) }]);
    const track = await caught(() =>
      shipping.trackWaybill({ awb: " ", courier: "jne:pos", last_phone_number: "1234" }),
    );
    expect((track as RequestValidationError).issues.map((i) => i.path).sort()).toEqual([
      "awb",
      "courier",
      "last_phone_number",
    ]);
    const search = await caught(() => shipping.searchDomesticDestinations({ search: "", limit: 0, offset: -1 }));
    expect((search as RequestValidationError).issues.map((i) => i.path).sort()).toEqual(["limit", "offset", "search"]);
    const lookup = await caught(() => shipping.listCities("12 13"));
    expect(lookup).toBeInstanceOf(RequestValidationError);
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe("ShippingClient destination iterators", () => {
  const page = (from: number, count: number) =>
    meta(
      200,
      "OK",
      Array.from({ length: count }, (_, i) => ({ ...destination, id: from + i })),
    );

  it("pages until a short page", async () => {
    const { shipping, sent } = client([{ body: page(0, 2) }, { body: page(2, 2) }, { body: page(4, 1) }]);
    const ids: unknown[] = [];
    for await (const place of shipping.iterateDomesticDestinations({ search: "bandung", pageSize: 2 }))
      ids.push(place.id);
    expect(ids).toEqual([0, 1, 2, 3, 4]);
    expect(sent.map((r) => r.url.search)).toEqual([
      "?search=bandung&limit=2&offset=0",
      "?search=bandung&limit=2&offset=2",
      "?search=bandung&limit=2&offset=4",
    ]);
  });

  it("stops on an empty page reported as 'not found'", async () => {
    const { shipping, sent } = client([
      { body: page(0, 2) },
      { status: 404, body: meta(404, "Domestic Destinations Data not found") },
    ]);
    const ids: unknown[] = [];
    for await (const place of shipping.iterateDomesticDestinations({ search: "x", pageSize: 2 })) ids.push(place.id);
    expect(ids).toEqual([0, 1]);
    expect(sent).toHaveLength(2);
  });

  it("is bounded by maxPages", async () => {
    const { shipping, sent } = client([{ body: page(0, 3) }]);
    let count = 0;
    for await (const _ of shipping.iterateDomesticDestinations({ search: "x", pageSize: 3, maxPages: 4 })) count++;
    expect(count).toBe(12);
    expect(sent).toHaveLength(4);
  });

  it("pages international destinations with the default page size", async () => {
    const countries = Array.from({ length: 100 }, (_, i) => ({ country_id: String(i), country_name: `C${i}` }));
    const { shipping, sent } = client([
      { body: meta(200, "OK", countries) },
      { body: meta(200, "OK", countries.slice(0, 7)) },
    ]);
    let count = 0;
    for await (const _ of shipping.iterateInternationalDestinations({ search: "a" })) count++;
    expect(count).toBe(107);
    expect(sent.map((r) => r.query.offset)).toEqual(["0", "100"]);
  });

  it("validates before the first page, synchronously", () => {
    const { shipping, fetch } = client([{ body: page(0, 1) }]);
    expect(() => shipping.iterateDomesticDestinations({ search: "", pageSize: 0 })).toThrow(RequestValidationError);
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe("ShippingClient lookup cache", () => {
  const clocked = (replies: Reply[], cache: LookupCacheOptions | false) => {
    let now = 1_000_000;
    const built = client(replies, { cache, clock: () => now });
    return { ...built, advance: (ms: number) => (now += ms) };
  };

  it("is off by default", async () => {
    const { shipping, sent } = client([{ body: meta(200, "OK", [{ id: 1, name: "A" }]) }]);
    await shipping.listProvinces();
    await shipping.listProvinces();
    expect(sent).toHaveLength(2);
  });

  it("serves lookups from cache until the TTL passes", async () => {
    const { shipping, sent, advance } = clocked(
      [{ body: meta(200, "OK", [{ id: 1, name: "A" }]) }, { body: meta(200, "OK", [{ id: 2, name: "B" }]) }],
      { ttlMs: 1000 },
    );
    expect((await shipping.listProvinces()).data[0]?.id).toBe(1);
    advance(999);
    expect((await shipping.listProvinces()).data[0]?.id).toBe(1);
    expect(sent).toHaveLength(1);
    advance(1);
    expect((await shipping.listProvinces()).data[0]?.id).toBe(2);
    expect(sent).toHaveLength(2);
  });

  it("keys on operation, path parameters and query", async () => {
    const { shipping, sent } = clocked([{ body: meta(200, "OK", [destination]) }], {});
    await shipping.listCities(1);
    await shipping.listCities(2);
    await shipping.listCities(1);
    await shipping.listDistricts(1);
    await shipping.searchDomesticDestinations({ search: "a" });
    await shipping.searchDomesticDestinations({ search: "a", limit: 5 });
    await shipping.searchDomesticDestinations({ search: "a" });
    await shipping.searchInternationalDestinations({ search: "a" }).catch(() => undefined);
    expect(sent.map((r) => r.url.pathname + r.url.search)).toEqual([
      "/api/v1/destination/city/1",
      "/api/v1/destination/city/2",
      "/api/v1/destination/district/1",
      "/api/v1/destination/domestic-destination?search=a",
      "/api/v1/destination/domestic-destination?search=a&limit=5",
      "/api/v1/destination/international-destination?search=a",
    ]);
  });

  it("never caches costs, tracking or errors", async () => {
    const { shipping, sent } = clocked([{ body: meta(200, "OK", costOptions) }], {});
    const form = { origin: 1, destination: 2, weight: 1000, courier: "jne" };
    await shipping.calculateDomesticCost(form);
    await shipping.calculateDomesticCost(form);
    expect(sent).toHaveLength(2);
    const tracking = clocked([{ body: meta(200, "OK", { delivered: false, manifest: [] }) }], {});
    await tracking.shipping.trackWaybill({ awb: "A", courier: "jne" });
    await tracking.shipping.trackWaybill({ awb: "A", courier: "jne" });
    expect(tracking.sent).toHaveLength(2);
    const failing = clocked([{ status: 500, body: meta(500, "down") }, { body: meta(200, "OK", [{ id: 1 }]) }], {});
    await expect(failing.shipping.listProvinces({ maxRetries: 0 })).rejects.toBeInstanceOf(ApiError);
    expect((await failing.shipping.listProvinces()).data).toEqual([{ id: 1 }]);
    expect(failing.sent).toHaveLength(2);
  });

  it("hands out copies, so mutating a result cannot poison the cache", async () => {
    const { shipping } = clocked([{ body: meta(200, "OK", [{ id: 1, name: "A" }]) }], {});
    const first = await shipping.listProvinces();
    first.data.push({ id: 99 });
    first.data[0]!.name = "changed";
    const second = await shipping.listProvinces();
    expect(second.data).toEqual([{ id: 1, name: "A" }]);
  });

  it("evicts the least recently used entry beyond max", async () => {
    const { shipping, sent } = clocked([{ body: meta(200, "OK", []) }], { max: 2 });
    await shipping.listCities(1);
    await shipping.listCities(2);
    await shipping.listCities(1);
    await shipping.listCities(3);
    await shipping.listCities(1);
    await shipping.listCities(2);
    expect(sent.map((r) => r.path.split("/").pop())).toEqual(["1", "2", "3", "2"]);
  });

  it("refuses a bad cache configuration", () => {
    expect(() => client([], { cache: { ttlMs: 0 } })).toThrow(/cache\.ttlMs/);
    expect(() => client([], { cache: { max: 1.5 } })).toThrow(/cache\.max/);
  });
});
