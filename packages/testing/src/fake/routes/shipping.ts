import {
  citiesOf,
  getCity,
  getDistrict,
  getProvince,
  parseId,
  searchCountries,
  searchDomestic,
} from "../../data/lookup.js";
import { PROVINCES } from "../../data/regions.js";
import { metaError, metaOk } from "../../fixtures/envelopes.js";
import {
  domesticDestinationRecord,
  page,
  priceDomestic,
  priceInternational,
  SHIPPING_MESSAGES,
} from "../../fixtures/shipping.js";
import { waybillResult } from "../../fixtures/waybill.js";
import { jsonReply } from "../json-reply.js";
import { applyCourierFaults } from "../shipping-faults.js";
import { type FakeApp, type FakeContext, readForm, readParams } from "../world.js";

function paging(params: Record<string, unknown>): { limit?: number; offset?: number } {
  const limit = parseId(params.limit);
  const offset = parseId(params.offset);
  return { ...(limit === undefined ? {} : { limit }), ...(offset === undefined ? {} : { offset }) };
}

function search(params: Record<string, unknown>): string | undefined {
  return typeof params.search === "string" && params.search.trim() !== "" ? params.search : undefined;
}

/** Current shipping interface under `/api/v1` (header `key`). */
export function shippingRoutes(app: FakeApp): void {
  const domestic = async (c: FakeContext) => {
    const params = await readParams(c);
    const term = search(params);
    if (!term) return jsonReply(metaError(422, SHIPPING_MESSAGES.parameterMissing), 422);
    const found = searchDomestic(term).map(domesticDestinationRecord);
    if (found.length === 0) return jsonReply(metaError(404, SHIPPING_MESSAGES.domesticNotFound), 404);
    const { limit, offset } = paging(params);
    return jsonReply(metaOk(page(found, limit, offset)));
  };
  // The spec's prose names POST while its sample uses GET with a query: accept both.
  app.get("/api/v1/destination/domestic-destination", domestic);
  app.post("/api/v1/destination/domestic-destination", domestic);

  const international = async (c: FakeContext) => {
    const params = await readParams(c);
    const term = search(params);
    if (!term) return jsonReply(metaError(422, SHIPPING_MESSAGES.parameterMissing), 422);
    const found = searchCountries(term).map((country) => ({
      country_id: country.countryId,
      country_name: country.name,
    }));
    if (found.length === 0) return jsonReply(metaError(404, SHIPPING_MESSAGES.internationalNotFound), 404);
    const { limit, offset } = paging(params);
    return jsonReply(metaOk(page(found, limit, offset)));
  };
  app.get("/api/v1/destination/international-destination", international);
  app.post("/api/v1/destination/international-destination", international);

  app.get("/api/v1/destination/province", () => jsonReply(metaOk(PROVINCES.map((p) => ({ id: p.id, name: p.name })))));

  app.get("/api/v1/destination/city/:provinceId", (c) => {
    const province = getProvince(parseId(c.req.param("provinceId")) ?? -1);
    if (!province) return jsonReply(metaError(404, "City Data not found"), 404);
    const cities = citiesOf(province.id);
    return jsonReply(metaOk(cities.map((city) => ({ id: city.id, name: city.name, zip_code: city.postalCode }))));
  });

  app.get("/api/v1/destination/district/:cityId", (c) => {
    const city = getCity(parseId(c.req.param("cityId")) ?? -1);
    if (!city) return jsonReply(metaError(404, "District Data not found"), 404);
    return jsonReply(metaOk(city.districts.map((d) => ({ id: d.id, name: d.name, zip_code: d.zipCode }))));
  });

  app.get("/api/v1/destination/sub-district/:districtId", (c) => {
    const district = getDistrict(parseId(c.req.param("districtId")) ?? -1);
    if (!district) return jsonReply(metaError(404, "Sub District Data not found"), 404);
    return jsonReply(metaOk(district.subdistricts.map((s) => ({ id: s.id, name: s.name, zip_code: s.zipCode }))));
  });

  const cost = (level: "subdistrict" | "district") => async (c: FakeContext) => {
    const form = await applyCourierFaults(c, await readForm(c));
    if (form instanceof Response) return form;
    const result = priceDomestic(form, level);
    if (!result.ok) return jsonReply(metaError(result.code, result.message), result.code as 400);
    return jsonReply(metaOk(result.options));
  };
  app.post("/api/v1/calculate/domestic-cost", cost("subdistrict"));
  app.post("/api/v1/calculate/district/domestic-cost", cost("district"));

  app.post("/api/v1/calculate/international-cost", async (c) => {
    const form = await applyCourierFaults(c, await readForm(c));
    if (form instanceof Response) return form;
    const result = priceInternational(form);
    if (!result.ok) return jsonReply(metaError(result.code, result.message), result.code as 400);
    return jsonReply(metaOk(result.options));
  });

  app.post("/api/v1/track/waybill", async (c) => {
    const params = await readParams(c);
    const awb = typeof params.awb === "string" ? params.awb.trim() : "";
    const courier = typeof params.courier === "string" ? params.courier.trim().toLowerCase() : "";
    if (!awb || !courier) return jsonReply(metaError(422, SHIPPING_MESSAGES.parameterMissing), 422);
    const order = c.env.world.orders.findByWaybill(awb, courier);
    if (!order) return jsonReply(metaError(404, "Waybill not found"), 404);
    if (courier === "jne") {
      // JNE only answers when the caller proves it knows the receiver: the last 5 digits of their phone.
      const digits = typeof params.last_phone_number === "string" ? params.last_phone_number.trim() : "";
      if (!digits) return jsonReply(metaError(422, SHIPPING_MESSAGES.parameterMissing), 422);
      if (!order.receiverPhone.endsWith(digits) || digits.length !== 5) {
        return jsonReply(metaError(400, "last_phone_number does not match the receiver"), 400);
      }
    }
    return jsonReply(metaOk(waybillResult(order.shipment)));
  });
}
