import { describe, expect, it } from "vitest";
import { api, fake } from "./helpers.js";

describe("fake Pro and Starter interfaces (raw HTTP semantics)", () => {
  it("wraps lookups in { rajaongkir } with string ids, one record when id is given", async () => {
    const provider = fake();
    const all = await (await api(provider).pro.get("/api/province")).json();
    expect(all.rajaongkir.status).toEqual({ code: 200, description: "OK" });
    expect(all.rajaongkir.results).toContainEqual({ province_id: "6", province: "DKI Jakarta" });
    const one = await (await api(provider).pro.get("/api/province?id=1")).json();
    expect(one.rajaongkir.results).toEqual({ province_id: "1", province: "Bali" });
    expect(one.rajaongkir.query).toEqual({ id: "1" });
    const cities = await (await api(provider).pro.get("/api/city?province=1")).json();
    expect(cities.rajaongkir.results.map((c: { city_name: string }) => c.city_name)).toEqual(["Denpasar", "Badung"]);
    expect(cities.rajaongkir.results[1]).toEqual({
      city_id: "17",
      province_id: "1",
      province: "Bali",
      type: "Kabupaten",
      city_name: "Badung",
      postal_code: "80351",
    });
    const subs = await (await api(provider).pro.get("/api/subdistrict?city=17")).json();
    expect(subs.rajaongkir.results[0]).toMatchObject({
      subdistrict_id: "1701",
      city: "Badung",
      subdistrict_name: "Kuta",
    });
    const needsCity = await api(provider).pro.get("/api/subdistrict");
    expect(needsCity.status).toBe(400);
  });

  it("accepts the key as header, query parameter or form field; a bad key is HTTP 400 in Indonesian", async () => {
    const provider = fake();
    const key = provider.apiKeys.pro[0] ?? "";
    expect((await api(provider).call(`/api/province?key=${key}`)).status).toBe(200);
    expect(
      (await api(provider).pro.form("/api/cost", { origin: "152", destination: "23", weight: 1000, courier: "jne" }))
        .status,
    ).toBe(200);
    const bad = await api(provider).call("/api/province?key=wrong-key-123");
    expect(bad.status).toBe(400);
    const body = await bad.json();
    expect(body.rajaongkir.status.description).toMatch(/^Invalid key/);
    expect(JSON.stringify(body)).not.toContain("wrong-key-123");
    expect((await api(provider).call("/api/province")).status).toBe(400);
  });

  it("prices Pro costs city or subdistrict to either, nested results[].costs[].cost[]", async () => {
    const provider = fake();
    const body = await (
      await api(provider).pro.form("/api/cost", {
        origin: "1701",
        originType: "subdistrict",
        destination: "444",
        destinationType: "city",
        weight: 1700,
        courier: "jne:pos",
      })
    ).json();
    expect(body.rajaongkir.origin_details).toMatchObject({ subdistrict_id: "1701", subdistrict_name: "Kuta" });
    expect(body.rajaongkir.destination_details).toMatchObject({ city_id: "444", city_name: "Surabaya" });
    expect(body.rajaongkir.query).not.toHaveProperty("key");
    const [jne, pos] = body.rajaongkir.results;
    expect(jne.code).toBe("jne");
    expect(jne.costs[0].cost[0]).toMatchObject({ etd: expect.stringMatching(/^\d+(-\d+)?$/), note: "" });
    expect(pos.costs[0].cost[0].etd).toMatch(/HARI$/);
    const invalid = await api(provider).pro.form("/api/cost", {
      origin: "152",
      destination: "23",
      weight: 1000,
      courier: "fedex",
    });
    expect(invalid.status).toBe(400);
  });

  it("serves international origins, destinations, costs, currency and waybills", async () => {
    const provider = fake();
    const destinations = await (await api(provider).pro.get("/api/v2/internationalDestination?id=108")).json();
    expect(destinations.rajaongkir.results).toEqual({ country_id: "108", country_name: "Malaysia" });
    const origins = await (await api(provider).pro.get("/api/v2/internationalOrigin?province=6")).json();
    expect(origins.rajaongkir.results).toHaveLength(5);
    const cost = await (
      await api(provider).pro.form("/api/v2/internationalCost", {
        origin: "152",
        destination: "108",
        weight: 1000,
        courier: "pos",
      })
    ).json();
    expect(cost.rajaongkir.results[0].costs[0]).toMatchObject({ currency: "IDR", cost: expect.any(Number) });
    const currency = await (await api(provider).pro.get("/api/currency")).json();
    expect(currency.rajaongkir.result.value).toBe(16_250);
    const order = provider.orders.create({ courier: "sicepat" });
    const waybill = await (
      await api(provider).pro.form("/api/waybill", { waybill: order.cnote, courier: "sicepat" })
    ).json();
    expect(waybill.rajaongkir.result.summary).toMatchObject({ waybill_number: order.cnote, status: "ON PROCESS" });
    const unknown = await api(provider).pro.form("/api/waybill", { waybill: "X1", courier: "sicepat" });
    expect(unknown.status).toBe(400);
    // JNE is trackable on Pro (the provider's own example); a code it does not know is refused by the provider.
    const jne = await api(provider).pro.form("/api/waybill", { waybill: "X1", courier: "jne" });
    expect((await jne.json()).rajaongkir.status.description).not.toMatch(/Kurir tidak valid/);
    const unknownCourier = await api(provider).pro.form("/api/waybill", { waybill: order.cnote, courier: "kurirx" });
    expect((await unknownCourier.json()).rajaongkir.status.description).toMatch(/Kurir tidak valid/);
  });

  it("Starter prices only jne, pos and tiki between cities", async () => {
    const provider = fake();
    const ok = await (
      await api(provider).starter.form("/starter/cost", {
        origin: "501",
        destination: "114",
        weight: 1200,
        courier: "tiki",
      })
    ).json();
    expect(ok.rajaongkir.results[0].code).toBe("tiki");
    const sicepat = await api(provider).starter.form("/starter/cost", {
      origin: "501",
      destination: "114",
      weight: 1200,
      courier: "sicepat",
    });
    expect(sicepat.status).toBe(400);
    expect((await sicepat.json()).rajaongkir.status.description).toMatch(/jne, pos, dan tiki/);
    const noWeight = await api(provider).starter.form("/starter/cost", {
      origin: "501",
      destination: "114",
      courier: "jne",
    });
    expect((await noWeight.json()).rajaongkir.status.description).toMatch(/weight/);
    const cities = await (await api(provider).starter.get("/starter/city?id=501")).json();
    expect(cities.rajaongkir.results).toMatchObject({ city_name: "Yogyakarta", postal_code: "55111" });
    expect((await api(provider).starter.get("/starter/province")).status).toBe(200);
  });
});
