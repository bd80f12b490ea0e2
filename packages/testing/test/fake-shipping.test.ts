import { describe, expect, it } from "vitest";
import { api, fake } from "./helpers.js";

const GAMBIR = 1_520_101; // Gambir, Jakarta Pusat
const BRAGA = 230_201; // Braga, Bandung
const DARAT = 2_780_101; // Darat, Medan

describe("fake shipping, current interface (raw HTTP semantics)", () => {
  it("searches domestic destinations by name or postal code, with limit and offset", async () => {
    const provider = fake();
    const body = await (
      await api(provider).shipping.get("/api/v1/destination/domestic-destination?search=braga")
    ).json();
    expect(body.meta.code).toBe(200);
    expect(body.data).toEqual([
      {
        id: BRAGA,
        label: "BRAGA, SUMUR BANDUNG, BANDUNG, JAWA BARAT, 40111",
        province_name: "JAWA BARAT",
        city_name: "BANDUNG",
        district_name: "SUMUR BANDUNG",
        subdistrict_name: "BRAGA",
        zip_code: "40111",
      },
    ]);
    const byZip = await (
      await api(provider).shipping.get("/api/v1/destination/domestic-destination?search=80361")
    ).json();
    expect(byZip.data.length).toBeGreaterThanOrEqual(3);
    const paged = await (
      await api(provider).shipping.get("/api/v1/destination/domestic-destination?search=jakarta&limit=2&offset=1")
    ).json();
    const all = await (
      await api(provider).shipping.get("/api/v1/destination/domestic-destination?search=jakarta")
    ).json();
    expect(paged.data).toEqual(all.data.slice(1, 3));
  });

  it("answers the spec's lookup errors: 422 Parameter Missing, 404 … Data not found with data null", async () => {
    const provider = fake();
    const missing = await api(provider).shipping.get("/api/v1/destination/domestic-destination");
    expect(missing.status).toBe(422);
    expect(await missing.json()).toEqual({
      meta: { message: "Parameter Missing", code: 422, status: "error" },
      data: null,
    });
    const none = await api(provider).shipping.get("/api/v1/destination/domestic-destination?search=atlantis");
    expect(none.status).toBe(404);
    expect((await none.json()).meta.message).toBe("Domestic Destinations Data not found");
    const intl = await api(provider).shipping.get("/api/v1/destination/international-destination?search=narnia");
    expect((await intl.json()).meta.message).toBe("International Destinations Data not found");
    const sg = await (
      await api(provider).shipping.get("/api/v1/destination/international-destination?search=singa")
    ).json();
    expect(sg.data).toEqual([{ country_id: "199", country_name: "Singapore" }]);
  });

  it("walks the hierarchy province → city → district → subdistrict", async () => {
    const provider = fake();
    const provinces = await (await api(provider).shipping.get("/api/v1/destination/province")).json();
    expect(provinces.data).toContainEqual({ id: 6, name: "DKI Jakarta" });
    const cities = await (await api(provider).shipping.get("/api/v1/destination/city/6")).json();
    expect(cities.data.map((c: { name: string }) => c.name)).toEqual([
      "Jakarta Pusat",
      "Jakarta Selatan",
      "Jakarta Barat",
      "Jakarta Timur",
      "Jakarta Utara",
    ]);
    const districts = await (await api(provider).shipping.get("/api/v1/destination/district/152")).json();
    expect(districts.data[0]).toEqual({ id: 15_201, name: "Gambir", zip_code: "10110" });
    const subdistricts = await (await api(provider).shipping.get("/api/v1/destination/sub-district/15201")).json();
    expect(subdistricts.data[0]).toEqual({ id: GAMBIR, name: "Gambir", zip_code: "10110" });
    expect((await api(provider).shipping.get("/api/v1/destination/city/99")).status).toBe(404);
  });

  it("prices deterministically by distance and weight, and requires a form body", async () => {
    const provider = fake();
    const quote = async (fields: Record<string, string | number>) =>
      (await api(provider).shipping.form("/api/v1/calculate/domestic-cost", fields)).json();
    const near = await quote({ origin: GAMBIR, destination: BRAGA, weight: 1000, courier: "jne" });
    const far = await quote({ origin: GAMBIR, destination: DARAT, weight: 1000, courier: "jne" });
    const heavy = await quote({ origin: GAMBIR, destination: BRAGA, weight: 2500, courier: "jne" });
    const reg = (body: { data: { service: string; cost: number; etd: string }[] }) =>
      body.data.find((o) => o.service === "REG");
    expect(reg(near)).toMatchObject({
      name: "Jalur Nugraha Ekakurir (JNE)",
      code: "jne",
      description: "Layanan Reguler",
    });
    expect(reg(far)?.cost).toBeGreaterThan(reg(near)?.cost ?? Number.POSITIVE_INFINITY);
    expect(reg(heavy)?.cost).toBe((reg(near)?.cost ?? 0) * 3);
    expect(reg(near)?.etd).toMatch(/^\d+(-\d+)? day$/);
    expect(await quote({ origin: GAMBIR, destination: BRAGA, weight: 1000, courier: "jne" })).toEqual(near);
    const multi = await quote({
      origin: GAMBIR,
      destination: BRAGA,
      weight: 1000,
      courier: "jne:sicepat",
      price: "lowest",
    });
    const costs = multi.data.map((o: { cost: number }) => o.cost);
    expect(costs).toEqual([...costs].sort((a, b) => a - b));
    expect(new Set(multi.data.map((o: { code: string }) => o.code))).toEqual(new Set(["jne", "sicepat"]));
    const json = await api(provider).call("/api/v1/calculate/domestic-cost", {
      method: "POST",
      headers: { key: provider.apiKeys.shipping[0] ?? "", "content-type": "application/json" },
      body: JSON.stringify({ origin: GAMBIR, destination: BRAGA, weight: 1000, courier: "jne" }),
    });
    expect(json.status).toBe(400);
    expect((await json.json()).meta.message).toBe("Missing Params");
  });

  it("answers the cost error table: 400 Missing Params, 422 Invalid Courier, 400 … not found", async () => {
    const provider = fake();
    const post = (fields: Record<string, string | number>) =>
      api(provider).shipping.form("/api/v1/calculate/domestic-cost", fields);
    const missing = await post({ origin: GAMBIR, weight: 1000, courier: "jne" });
    expect([missing.status, (await missing.json()).meta.message]).toEqual([400, "Missing Params"]);
    const invalid = await post({ origin: GAMBIR, destination: BRAGA, weight: 1000, courier: "jne:fedex" });
    expect([invalid.status, (await invalid.json()).meta.message]).toEqual([422, "Invalid Courier"]);
    // 21 Express (dse) only serves Java: Jakarta → Medan has no courier.
    const noRoute = await post({ origin: GAMBIR, destination: DARAT, weight: 1000, courier: "dse" });
    expect(await noRoute.json()).toEqual({
      meta: { message: "Calculate Domestic Shipping Cost not found", code: 400, status: "error" },
      data: null,
    });
    expect(noRoute.status).toBe(400);
  });

  it("prices district to district ascending, and international routes with a currency", async () => {
    const provider = fake();
    const district = await (
      await api(provider).shipping.form("/api/v1/calculate/district/domestic-cost", {
        origin: 15_201,
        destination: 2_302,
        weight: 1000,
        courier: "jne:tiki",
      })
    ).json();
    const costs = district.data.map((o: { cost: number }) => o.cost);
    expect(costs).toEqual([...costs].sort((a, b) => a - b));
    const intl = await (
      await api(provider).shipping.form("/api/v1/calculate/international-cost", {
        origin: GAMBIR,
        destination: "98",
        weight: 1000,
        courier: "pos",
      })
    ).json();
    expect(intl.data[0]).toMatchObject({ code: "pos", currency: "IDR" });
  });

  it("tracks a fake order's waybill; JNE needs the receiver phone's last 5 digits", async () => {
    const provider = fake();
    const order = provider.orders.create({ courier: "jne", receiverPhone: "081234567890" });
    await provider.orders.setStatus(order.orderNo, "Dijemput");
    await provider.orders.setStatus(order.orderNo, "Selesai");
    const track = (query: string) =>
      api(provider).call(`/api/v1/track/waybill?${query}`, {
        method: "POST",
        headers: { key: provider.apiKeys.shipping[0] ?? "" },
      });
    expect((await track(`awb=${order.cnote}&courier=jne`)).status).toBe(422);
    expect((await track(`awb=${order.cnote}&courier=jne&last_phone_number=99999`)).status).toBe(400);
    const body = await (await track(`awb=${order.cnote}&courier=jne&last_phone_number=67890`)).json();
    expect(body.data.delivered).toBe(true);
    expect(body.data.delivery_status).toMatchObject({ status: "DELIVERED", pod_receiver: "SITI RAHAYU" });
    expect(body.data.manifest.map((m: { manifest_description: string }) => m.manifest_description)).toEqual([
      "DELIVERED (SELESAI)",
      "PICKED UP BY COURIER (DIJEMPUT)",
      "SHIPMENT DATA RECEIVED (DIAJUKAN)",
    ]);
    expect((await track("awb=NOPE&courier=sicepat")).status).toBe(404);
  });

  it("authenticates with the key header only", async () => {
    const provider = fake();
    const viaQuery = await api(provider).call(`/api/v1/destination/province?key=${provider.apiKeys.shipping[0]}`);
    expect(viaQuery.status).toBe(401);
    expect((await viaQuery.json()).meta.message).toMatch(/header key/);
  });
});
