import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  ApiError,
  AuthenticationError,
  ConfigurationError,
  InvalidCourierError,
  RequestValidationError,
  ResponseValidationError,
} from "../src/errors/index.js";
import { SHIPPING_PRO_PATHS, ShippingProClient, type ShippingProClientOptions } from "../src/shipping/index.js";
import { caught, fakeFetch, type Reply, rajaongkir, testTiming } from "./shipping-support.js";

const KEY = "sentinel-pro-key-4c1d2";
const ANDROID = "sentinel-android-key-88";
const IOS = "sentinel-ios-key-99";
const BASE = "https://pro.example.id";

const client = (replies: Reply[], extra: Partial<ShippingProClientOptions> = {}) => {
  const fake = fakeFetch(...replies);
  return {
    ...fake,
    pro: new ShippingProClient({ apiKey: KEY, baseUrl: BASE, fetch: fake.fetch, ...testTiming, ...extra }),
  };
};

const province = { province_id: "9", province: "Jawa Barat" };
const city = {
  city_id: "23",
  province_id: "9",
  province: "Jawa Barat",
  type: "Kota",
  city_name: "Bandung",
  postal_code: "40111",
};
const costResults = [
  {
    code: "jne",
    name: "Jalur Nugraha Ekakurir (JNE)",
    costs: [
      { service: "OKE", description: "Ongkos Kirim Ekonomis", cost: [{ value: 38000, etd: "4-5", note: "" }] },
      { service: "REG", description: "Layanan Reguler", cost: [{ value: "44000", etd: "2-3 HARI", note: "" }] },
    ],
  },
  { code: "tiki", name: "Citra Van Titipan Kilat (TIKI)", costs: [] },
];

describe("ShippingProClient requests", () => {
  it("sends key, android-key and ios-key as headers by default", async () => {
    const { pro, sent } = client([{ body: rajaongkir({ query: { id: "9" }, results: province }) }], {
      androidKey: ANDROID,
      iosKey: IOS,
    });
    const { data } = await pro.listProvinces({ id: 9 });
    expect(sent[0]!.method).toBe("GET");
    expect(sent[0]!.path).toBe("/api/province");
    expect(sent[0]!.url.search).toBe("?id=9");
    expect(sent[0]!.headers.get("key")).toBe(KEY);
    expect(sent[0]!.headers.get("android-key")).toBe(ANDROID);
    expect(sent[0]!.headers.get("ios-key")).toBe(IOS);
    expect(data).toEqual([province]);
  });

  it("lists all provinces and cities with optional filters", async () => {
    const { pro, sent } = client([
      { body: rajaongkir({ query: [], results: [province, { province_id: 6, province: "DKI Jakarta" }] }) },
      { body: rajaongkir({ query: { province: "9" }, results: [city] }) },
      { body: rajaongkir({ query: [], results: [] }) },
    ]);
    expect((await pro.listProvinces()).data).toHaveLength(2);
    expect((await pro.listCities({ province: "9" })).data).toEqual([city]);
    expect((await pro.listCities()).data).toEqual([]);
    expect(sent.map((r) => r.path + r.url.search)).toEqual(["/api/province", "/api/city?province=9", "/api/city"]);
    expect(sent.every((r) => r.headers.get("android-key") === null)).toBe(true);
  });

  it("lists subdistricts of a city", async () => {
    const sub = {
      subdistrict_id: "2103",
      province_id: "6",
      province: "DKI Jakarta",
      city_id: "151",
      city: "Jakarta Barat",
      type: "Kota",
      subdistrict_name: "Cengkareng",
    };
    const { pro, sent } = client([{ body: rajaongkir({ query: { city: "151" }, results: [sub] }) }]);
    const { data } = await pro.listSubdistricts({ city: 151, id: "2103" });
    expect(sent[0]!.path + sent[0]!.url.search).toBe("/api/subdistrict?city=151&id=2103");
    expect(data).toEqual([sub]);
  });

  it("calculates a cost with a form body and reads the nested results", async () => {
    const body = rajaongkir({
      query: {
        origin: "501",
        originType: "city",
        destination: "574",
        destinationType: "subdistrict",
        weight: 1700,
        courier: "jne",
      },
      origin_details: { city_id: "501", city_name: "Yogyakarta" },
      destination_details: { subdistrict_id: "574", subdistrict_name: "Batang Anai" },
      results: costResults,
    });
    const { pro, sent } = client([{ body }]);
    const { data } = await pro.calculateCost({
      origin: 501,
      originType: "city",
      destination: "574",
      destinationType: "subdistrict",
      weight: 1700,
      courier: "JNE",
      length: 20,
      width: 10,
      height: 5,
    });
    const [request] = sent;
    expect(request!.method).toBe("POST");
    expect(request!.path).toBe("/api/cost");
    expect(request!.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    expect(request!.body).toBe(
      "origin=501&originType=city&destination=574&destinationType=subdistrict&weight=1700&courier=jne&length=20&width=10&height=5",
    );
    expect(data.results[0]!.costs.map((c) => [c.service, c.cost[0]!.value, c.cost[0]!.etd])).toEqual([
      ["OKE", 38000, "4-5"],
      ["REG", 44000, "2-3 HARI"],
    ]);
    expect(data.results[1]!.costs).toEqual([]);
    expect(data.origin_details).toMatchObject({ city_name: "Yogyakarta" });
  });

  it("lists international origins and destinations", async () => {
    const { pro, sent } = client([
      {
        body: rajaongkir({
          results: [{ province_id: "6", province: "DKI Jakarta", city_id: "152", city_name: "Jakarta Pusat" }],
        }),
      },
      { body: rajaongkir({ results: { country_id: "108", country_name: "Malaysia (MY)" } }) },
    ]);
    expect((await pro.listInternationalOrigins({ province: 6 })).data[0]).toMatchObject({ city_id: "152" });
    expect((await pro.listInternationalDestinations({ id: "108" })).data).toEqual([
      { country_id: "108", country_name: "Malaysia (MY)" },
    ]);
    expect(sent.map((r) => `${r.method} ${r.path}${r.url.search}`)).toEqual([
      "GET /api/v2/internationalOrigin?province=6",
      "GET /api/v2/internationalDestination?id=108",
    ]);
  });

  it("calculates international cost", async () => {
    const { pro, sent } = client([
      {
        body: rajaongkir({
          results: [
            {
              code: "pos",
              name: "POS Indonesia",
              costs: [{ service: "Paket Pos Biasa", currency: "IDR", cost: 292000, etd: "" }],
            },
            { code: "jne", name: "JNE", costs: [{ service: "INTL", currency: "USD", cost: "23.75", etd: null }] },
          ],
          currency: { value: 16250, last_update: "2026-11-20 10:00:00" },
        }),
      },
    ]);
    const { data } = await pro.calculateInternationalCost({
      origin: "152",
      destination: 108,
      weight: 1400,
      courier: ["pos", "jne"],
    });
    expect(sent[0]!.path).toBe("/api/v2/internationalCost");
    expect(sent[0]!.body).toBe("origin=152&destination=108&weight=1400&courier=pos%3Ajne");
    expect(data.results[1]!.costs[0]).toMatchObject({ currency: "USD", cost: 23.75, etd: "" });
    expect(data).toMatchObject({ currency: { value: 16250 } });
  });

  it("reads the currency rate", async () => {
    const { pro, sent } = client([{ body: rajaongkir({ result: { value: "16250", last_update: "2026-11-20" } }) }]);
    const { data } = await pro.getCurrency();
    expect(sent[0]!.method + sent[0]!.path).toBe("GET/api/currency");
    expect(data).toMatchObject({ value: 16250, last_update: "2026-11-20" });
  });

  it("tracks a waybill with a form body", async () => {
    const result = {
      delivered: true,
      summary: { courier_code: "J&T", waybill_number: "JP123", status: "DELIVERED" },
      details: { waybill_number: "JP123", weight: "1", origin: "JAKARTA" },
      delivery_status: { status: "DELIVERED", pod_receiver: "ANI", pod_date: "2026-01-05", pod_time: "11:00" },
      manifest: [
        {
          manifest_description: "Manifested",
          manifest_date: "2026-01-02",
          manifest_time: "08:00",
          city_name: "JAKARTA",
        },
      ],
    };
    const { pro, sent } = client([{ body: rajaongkir({ query: { waybill: "JP123", courier: "jnt" }, result }) }]);
    const { data } = await pro.trackWaybill({ waybill: "JP123", courier: "JNT" });
    expect(`${sent[0]!.method} ${sent[0]!.path}`).toBe("POST /api/waybill");
    expect(sent[0]!.body).toBe("waybill=JP123&courier=jnt");
    expect(data.delivered).toBe(true);
    expect(data.details?.weight).toBe(1);
    expect(data.manifest).toHaveLength(1);
  });

  it("sends keys as parameters with keyPlacement: 'param'", async () => {
    const { pro, sent } = client([{ body: rajaongkir({ results: [] }) }], {
      keyPlacement: "param",
      androidKey: ANDROID,
    });
    await pro.listCities({ id: 23 });
    await pro.calculateCost({
      origin: 1,
      originType: "city",
      destination: 2,
      destinationType: "city",
      weight: 10,
      courier: "jne",
    });
    expect(sent[0]!.query).toEqual({ id: "23", key: KEY, "android-key": ANDROID });
    expect(sent[0]!.headers.get("key")).toBeNull();
    expect(new URLSearchParams(sent[1]!.body).get("key")).toBe(KEY);
    expect(new URLSearchParams(sent[1]!.body).get("android-key")).toBe(ANDROID);
    expect(sent[1]!.url.search).toBe("");
    expect(sent[1]!.headers.get("key")).toBeNull();
  });

  it("refuses an unknown keyPlacement and a key with inner whitespace", () => {
    expect(() => client([], { keyPlacement: "cookie" as "param" })).toThrow(ConfigurationError);
    const error = (() => {
      try {
        client([], { androidKey: "abc def" });
      } catch (e) {
        return e as ConfigurationError;
      }
    })();
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error?.option).toBe("androidKey");
    expect(error?.message).not.toContain("abc def");
  });

  it("has the documented default paths", () => {
    expect(SHIPPING_PRO_PATHS).toMatchObject({ calculateCost: "/api/cost", getCurrency: "/api/currency" });
  });
});

describe("ShippingProClient errors and secrets", () => {
  const invalidKey = {
    status: 400,
    body: rajaongkir({ query: { key: KEY } }, 400, "Invalid key. API key tidak ditemukan di database RajaOngkir."),
  };

  it.each(["header", "param"] as const)(
    "an invalid key (HTTP 400, Indonesian text) → AuthenticationError (%s)",
    async (keyPlacement) => {
      const { pro, sent } = client([invalidKey], { keyPlacement, maxRetries: 3 });
      const error = await caught(() => pro.listProvinces());
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error).toMatchObject({
        status: 400,
        providerCode: 400,
        credential: keyPlacement === "header" ? "header key" : "parameter key",
      });
      expect(sent).toHaveLength(1);
      for (const text of [
        (error as Error).message,
        JSON.stringify(error),
        inspect(error, { depth: 10 }),
        (error as ApiError).rawBody,
      ]) {
        expect(text).not.toContain(KEY);
      }
    },
  );

  it("redacts the key echoed in rajaongkir.query from results", async () => {
    const { pro } = client([{ body: rajaongkir({ query: { key: KEY, courier: "jne" }, results: costResults }) }], {
      keyPlacement: "param",
    });
    const result = await pro.calculateCost({
      origin: 1,
      originType: "city",
      destination: 2,
      destinationType: "city",
      weight: 10,
      courier: "jne",
    });
    expect(JSON.stringify(result.raw)).not.toContain(KEY);
    expect(result.rawBody).not.toContain(KEY);
    expect(JSON.stringify(result.data)).not.toContain(KEY);
    expect(result.data.query).toMatchObject({ courier: "jne" });
  });

  it("maps a body status 400 about the courier to InvalidCourierError", async () => {
    const { pro } = client([{ status: 400, body: rajaongkir({}, 400, "Bad request. Invalid courier.") }]);
    const error = await caught(() =>
      pro.calculateCost({
        origin: 1,
        originType: "city",
        destination: 2,
        destinationType: "city",
        weight: 10,
        courier: "zz",
      }),
    );
    expect(error).toBeInstanceOf(InvalidCourierError);
  });

  it("treats a body status error as an error even with HTTP 200", async () => {
    const { pro } = client([{ status: 200, body: rajaongkir({}, 400, "Bad request. Weight harus diisi.") }]);
    const error = await caught(() => pro.getCurrency());
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "missing_parameter", providerMessage: "Bad request. Weight harus diisi." });
  });

  it("raises ResponseValidationError on a body without the wrapper, keeping the raw body", async () => {
    const { pro } = client([{ body: { something: "else" } }]);
    const error = await caught(() => pro.listProvinces());
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).rawBody).toContain("something");
  });

  it("retries a 502 lookup and never caches it", async () => {
    const { pro, sent } = client(
      [{ status: 502, body: "bad gateway" }, { body: rajaongkir({ results: [province] }) }],
      { cache: {} },
    );
    expect((await pro.listProvinces()).data).toEqual([province]);
    expect((await pro.listProvinces()).data).toEqual([province]);
    expect(sent).toHaveLength(2);
  });
});

describe("ShippingProClient validation and cache", () => {
  it("allows dimensions only with exactly one courier and lists every failing field", async () => {
    const { pro, fetch } = client([{ body: rajaongkir({ results: [] }) }]);
    const error = await caught(() =>
      pro.calculateCost({
        origin: "",
        originType: "",
        destination: 2,
        destinationType: "city",
        weight: 0,
        courier: ["jne", "tiki"],
        length: 10,
        diameter: -1,
      }),
    );
    const paths = (error as RequestValidationError).issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(["origin", "originType", "weight", "diameter"]));
    expect(fetch).not.toHaveBeenCalled();
    const dims = await caught(() =>
      pro.calculateCost({
        origin: 1,
        originType: "city",
        destination: 2,
        destinationType: "city",
        weight: 1,
        courier: "jne:tiki",
        length: 10,
        width: 5,
      }),
    );
    expect((dims as RequestValidationError).issues.map((i) => i.path)).toEqual(["length", "width"]);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("tracks any courier code, JNE included (the provider's own example), and refuses only what can never work", async () => {
    const { pro, fetch } = client([{ body: rajaongkir({ result: {} }) }, { body: rajaongkir({ result: {} }) }]);
    const error = await caught(() => pro.trackWaybill({ waybill: "", courier: "jne:pos" }));
    expect((error as RequestValidationError).issues.map((i) => i.path).sort()).toEqual(["courier", "waybill"]);
    expect(fetch).not.toHaveBeenCalled();
    await pro.trackWaybill({ waybill: "CGK0123456789", courier: "jne" });
    await pro.trackWaybill({ waybill: "X", courier: "a-courier-added-later" });
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it("refuses unknown lookup filters and a missing city", async () => {
    const { pro, fetch } = client([{ body: rajaongkir({ results: [] }) }]);
    await expect(pro.listSubdistricts({} as never)).rejects.toBeInstanceOf(RequestValidationError);
    await expect(pro.listProvinces({ name: "x" } as never)).rejects.toBeInstanceOf(RequestValidationError);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("caches lookups per query with a TTL, never the currency rate", async () => {
    let now = 0;
    const { pro, sent } = client(
      [{ body: rajaongkir({ results: [{ ...city, country_id: "108" }], result: { value: 1 } }) }],
      {
        cache: { ttlMs: 60_000 },
        clock: () => now,
      },
    );
    await pro.listCities({ province: 9 });
    await pro.listCities({ province: 9 });
    await pro.listCities({ province: 10 });
    await pro.listInternationalDestinations();
    await pro.listInternationalDestinations();
    now = 60_000;
    await pro.listCities({ province: 9 });
    await pro.getCurrency();
    await pro.getCurrency();
    expect(sent.map((r) => r.path + r.url.search)).toEqual([
      "/api/city?province=9",
      "/api/city?province=10",
      "/api/v2/internationalDestination",
      "/api/city?province=9",
      "/api/currency",
      "/api/currency",
    ]);
  });
});
