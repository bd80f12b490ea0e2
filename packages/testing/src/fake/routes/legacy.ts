import { PRO_WAYBILL_COURIERS } from "../../data/couriers.js";
import { rajaOngkirBody, rajaOngkirError } from "../../fixtures/envelopes.js";
import {
  LEGACY_MESSAGES,
  legacyCities,
  legacyCost,
  legacyCurrency,
  legacyInternationalCost,
  legacyInternationalDestinations,
  legacyInternationalOrigins,
  legacyProvinces,
  legacySubdistricts,
} from "../../fixtures/legacy.js";
import { waybillResult } from "../../fixtures/waybill.js";
import { jsonReply } from "../json-reply.js";
import { legacyCourierFaults } from "../shipping-faults.js";
import { type FakeApp, type FakeContext, readParams } from "../world.js";

const SECRET_PARAMS = new Set(["key", "android-key", "ios-key"]);

/** Request parameters without the keys, echoed as `query` (never echo a secret). */
async function query(c: FakeContext): Promise<Record<string, string>> {
  const params = await readParams(c);
  return Object.fromEntries(
    Object.entries(params)
      .filter(([name, value]) => !SECRET_PARAMS.has(name) && typeof value === "string")
      .map(([name, value]) => [name, String(value)]),
  );
}

/** Answers with the status code inside the wrapper, which is also the HTTP status. */
function reply(body: { rajaongkir: { status: { code: number } } }) {
  return jsonReply(body, body.rajaongkir.status.code as 200);
}

type LegacyCostBody = { rajaongkir: { status: { code: number }; results?: unknown } };

/**
 * A legacy cost route under the courier faults (`setCourierFault`): a failing courier fails the call with its status
 * in the `{ rajaongkir: ... }` wrapper; a refusing one is priced with no services (`costs: []`).
 */
function legacyCostRoute(price: (params: Record<string, string>) => LegacyCostBody) {
  return async (c: FakeContext) => {
    const params = await query(c);
    const faults = await legacyCourierFaults(c, params.courier);
    if ("fail" in faults) return reply(rajaOngkirError(faults.fail.status, faults.fail.message, params));
    const body = price(params);
    const results = body.rajaongkir.results;
    if (faults.refused.size === 0 || !Array.isArray(results)) return reply(body);
    const refusedServices = results.map((result: { code?: unknown }) =>
      faults.refused.has(String(result.code).toLowerCase()) ? { ...result, costs: [] } : result,
    );
    const priced: LegacyCostBody = { ...body, rajaongkir: { ...body.rajaongkir, results: refusedServices } };
    return reply(priced);
  };
}

/** Pro interface (`/api/...`) and Starter interface (`/starter/...`): `{ rajaongkir: ... }` bodies. */
export function legacyRoutes(app: FakeApp): void {
  const both = (path: string, handler: (c: FakeContext) => Promise<Response>) => {
    app.get(path, handler);
    app.post(path, handler);
  };

  both("/api/province", async (c) => reply(legacyProvinces(await query(c))));
  both("/api/city", async (c) => reply(legacyCities(await query(c))));
  both("/api/subdistrict", async (c) => reply(legacySubdistricts(await query(c))));
  both("/api/currency", async (c) => reply(legacyCurrency(c.env.world.clock.now())));
  app.post(
    "/api/cost",
    legacyCostRoute((params) => legacyCost(params, "pro")),
  );
  both("/api/v2/internationalOrigin", async (c) => reply(legacyInternationalOrigins(await query(c))));
  both("/api/v2/internationalDestination", async (c) => reply(legacyInternationalDestinations(await query(c))));
  app.post("/api/v2/internationalCost", legacyCostRoute(legacyInternationalCost));

  app.post("/api/waybill", async (c) => {
    const params = await query(c);
    const waybill = params.waybill?.trim() ?? "";
    const courier = params.courier?.trim().toLowerCase() ?? "";
    if (!waybill) return reply(rajaOngkirError(400, LEGACY_MESSAGES.missingParam("waybill"), params));
    if (!courier) return reply(rajaOngkirError(400, LEGACY_MESSAGES.missingParam("courier"), params));
    if (!PRO_WAYBILL_COURIERS.includes(courier))
      return reply(rajaOngkirError(400, LEGACY_MESSAGES.invalidCourier, params));
    const order = c.env.world.orders.findByWaybill(waybill, courier);
    if (!order) return reply(rajaOngkirError(400, LEGACY_MESSAGES.invalidWaybill, params));
    return reply(rajaOngkirBody(params, { result: waybillResult(order.shipment) }));
  });

  both("/starter/province", async (c) => reply(legacyProvinces(await query(c))));
  both("/starter/city", async (c) => reply(legacyCities(await query(c))));
  app.post(
    "/starter/cost",
    legacyCostRoute((params) => legacyCost(params, "starter")),
  );
}
