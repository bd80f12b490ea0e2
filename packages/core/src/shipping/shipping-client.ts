import { z } from "zod";
import type { ApiResponse } from "../http/api-response.js";
import type { HttpMethod, OperationRequest } from "../http/operation.js";
import type { ClientOptions, RequestOptions } from "../http/options.js";
import { Transport } from "../http/transport.js";
import { parseRequestInput } from "../http/validate-input.js";
import { tagShippingAccount } from "./account.js";
import { cachedRequest } from "./cached-request.js";
import {
  type CourierCostOption,
  courierCostOptionSchema,
  type DestinationIterateInput,
  type DestinationSearchInput,
  type DomesticCostInput,
  type DomesticDestination,
  destinationIterateInputSchema,
  destinationSearchInputSchema,
  domesticCostInputSchema,
  domesticDestinationSchema,
  type InternationalCostInput,
  type InternationalDestination,
  internationalCostInputSchema,
  internationalDestinationSchema,
  type LocationRecord,
  locationSchema,
  type Province,
  provinceSchema,
  type TrackWaybillInput,
  trackWaybillInputSchema,
  type Waybill,
  waybillSchema,
} from "./current-schemas.js";
import { emptyListWhenNotFound, mapShippingError } from "./error-mapping.js";
import { createLookupCache, type LookupCache, type LookupCacheOptions } from "./lookup-cache.js";
import { type IdInput, idInputSchema } from "./schema-parts.js";

/** Operation names of {@link ShippingClient}, also the keys of its `paths` option. */
export type ShippingOperation =
  | "searchDomesticDestinations"
  | "searchInternationalDestinations"
  | "listProvinces"
  | "listCities"
  | "listDistricts"
  | "listSubdistricts"
  | "calculateDomesticCost"
  | "calculateDistrictDomesticCost"
  | "calculateInternationalCost"
  | "trackWaybill";

/** Default paths of the current interface (the spec, completed by the field notes). */
export const SHIPPING_PATHS: Readonly<Record<ShippingOperation, string>> = {
  searchDomesticDestinations: "/api/v1/destination/domestic-destination",
  searchInternationalDestinations: "/api/v1/destination/international-destination",
  listProvinces: "/api/v1/destination/province",
  listCities: "/api/v1/destination/city/{province_id}",
  listDistricts: "/api/v1/destination/district/{city_id}",
  listSubdistricts: "/api/v1/destination/sub-district/{district_id}",
  calculateDomesticCost: "/api/v1/calculate/domestic-cost",
  calculateDistrictDomesticCost: "/api/v1/calculate/district/domestic-cost",
  calculateInternationalCost: "/api/v1/calculate/international-cost",
  trackWaybill: "/api/v1/track/waybill",
};

/**
 * Options of {@link ShippingClient}: the common client options plus `cache` for static lookups.
 *
 * @example
 * const options: ShippingClientOptions = { apiKey: env.SHIPPING_KEY, baseUrl: env.SHIPPING_URL, cache: {} };
 */
export interface ShippingClientOptions extends ClientOptions<ShippingOperation> {
  /**
   * Cache provinces, cities, districts, subdistricts and destination searches. Off by default (`false`/absent);
   * `{}` turns it on with a 6 h TTL and 500 entries. Costs and tracking are never cached.
   */
  cache?: LookupCacheOptions | false;
}

const DEFAULT_PAGE_SIZE = 100;
const DEFAULT_MAX_PAGES = 50;

// Schemas are built once, not per call: building one costs more than parsing a response with it.
const lookupIdSchemas = {
  province_id: z.strictObject({ province_id: idInputSchema }),
  city_id: z.strictObject({ city_id: idInputSchema }),
  district_id: z.strictObject({ district_id: idInputSchema }),
};
const domesticDestinationsSchema = z.array(domesticDestinationSchema);
const internationalDestinationsSchema = z.array(internationalDestinationSchema);
const provincesSchema = z.array(provinceSchema);
const locationsSchema = z.array(locationSchema);
const courierCostOptionsSchema = z.array(courierCostOptionSchema);

/**
 * Client of the current shipping interface (`/api/v1`, header `key`): destination search and hierarchy lookups,
 * domestic/district/international cost, and waybill tracking. Every method validates its input before sending,
 * and resolves to an {@link ApiResponse}.
 *
 * @example
 * const shipping = new ShippingClient({ apiKey: process.env.SHIPPING_KEY!, baseUrl: "https://shipping.example.id" });
 * const { data: places } = await shipping.searchDomesticDestinations({ search: "sukajadi", limit: 5 });
 * const { data: options } = await shipping.calculateDomesticCost({
 *   origin: places[0]!.id, destination: 68423, weight: 1200, courier: ["jne", "sicepat"], price: "lowest",
 * });
 */
export class ShippingClient {
  readonly #transport: Transport;
  readonly #cache: LookupCache<ApiResponse<unknown>> | undefined;

  constructor(options: ShippingClientOptions) {
    this.#transport = new Transport(options, [{ in: "header", name: "key", option: "apiKey", value: options?.apiKey }]);
    this.#cache = createLookupCache(options.cache, options.clock ?? Date.now);
    tagShippingAccount(this, "current", [options.baseUrl, options.apiKey]);
  }

  /**
   * Searches Indonesian destinations by city, district, subdistrict or postal code. No match → `data: []`.
   * Cached when the client has a cache.
   *
   * @example
   * const { data } = await shipping.searchDomesticDestinations({ search: "40162" });
   */
  async searchDomesticDestinations(
    input: DestinationSearchInput,
    options?: RequestOptions,
  ): Promise<ApiResponse<DomesticDestination[]>> {
    const query = parseRequestInput(destinationSearchInputSchema, input, "searchDomesticDestinations");
    return this.#lookup<DomesticDestination[]>(
      Object.assign(this.#search("searchDomesticDestinations", query), { schema: domesticDestinationsSchema }),
      options,
    );
  }

  /**
   * Searches countries by name. No match → `data: []`. Cached when the client has a cache.
   *
   * @example
   * const { data } = await shipping.searchInternationalDestinations({ search: "malay" });
   */
  async searchInternationalDestinations(
    input: DestinationSearchInput,
    options?: RequestOptions,
  ): Promise<ApiResponse<InternationalDestination[]>> {
    const query = parseRequestInput(destinationSearchInputSchema, input, "searchInternationalDestinations");
    return this.#lookup<InternationalDestination[]>(
      Object.assign(this.#search("searchInternationalDestinations", query), {
        schema: internationalDestinationsSchema,
      }),
      options,
    );
  }

  /**
   * Pages through a domestic search, yielding one destination at a time. Stops on a short or empty page, or after
   * `maxPages` requests (default 50) so a misbehaving server cannot loop it forever. `pageSize` defaults to 100.
   *
   * @example
   * for await (const place of shipping.iterateDomesticDestinations({ search: "bandung" })) console.log(place.label);
   */
  iterateDomesticDestinations(
    input: DestinationIterateInput,
    options?: RequestOptions,
  ): AsyncGenerator<DomesticDestination, void, undefined> {
    const { search, pageSize, maxPages } = parseRequestInput(
      destinationIterateInputSchema,
      input,
      "iterateDomesticDestinations",
    );
    return this.#pages(
      (limit, offset) => this.searchDomesticDestinations({ search, limit, offset }, options),
      pageSize ?? DEFAULT_PAGE_SIZE,
      maxPages ?? DEFAULT_MAX_PAGES,
    );
  }

  /**
   * Pages through an international search, like {@link ShippingClient.iterateDomesticDestinations}.
   *
   * @example
   * for await (const country of shipping.iterateInternationalDestinations({ search: "a", pageSize: 50 })) {}
   */
  iterateInternationalDestinations(
    input: DestinationIterateInput,
    options?: RequestOptions,
  ): AsyncGenerator<InternationalDestination, void, undefined> {
    const { search, pageSize, maxPages } = parseRequestInput(
      destinationIterateInputSchema,
      input,
      "iterateInternationalDestinations",
    );
    return this.#pages(
      (limit, offset) => this.searchInternationalDestinations({ search, limit, offset }, options),
      pageSize ?? DEFAULT_PAGE_SIZE,
      maxPages ?? DEFAULT_MAX_PAGES,
    );
  }

  /**
   * Lists provinces (`{ id, name }`), the top of the province → city → district → subdistrict hierarchy.
   *
   * @example
   * const { data: provinces } = await shipping.listProvinces();
   */
  async listProvinces(options?: RequestOptions): Promise<ApiResponse<Province[]>> {
    return this.#lookup<Province[]>(
      Object.assign(this.#read("listProvinces"), { schema: provincesSchema, recover: emptyListWhenNotFound }),
      options,
    );
  }

  /**
   * Lists the cities of a province.
   *
   * @example
   * const { data: cities } = await shipping.listCities(12);
   */
  async listCities(provinceId: IdInput, options?: RequestOptions): Promise<ApiResponse<LocationRecord[]>> {
    return this.#children("listCities", "province_id", provinceId, options);
  }

  /**
   * Lists the districts of a city.
   *
   * @example
   * const { data: districts } = await shipping.listDistricts(55);
   */
  async listDistricts(cityId: IdInput, options?: RequestOptions): Promise<ApiResponse<LocationRecord[]>> {
    return this.#children("listDistricts", "city_id", cityId, options);
  }

  /**
   * Lists the subdistricts of a district.
   *
   * @example
   * const { data: subdistricts } = await shipping.listSubdistricts(1360);
   */
  async listSubdistricts(districtId: IdInput, options?: RequestOptions): Promise<ApiResponse<LocationRecord[]>> {
    return this.#children("listSubdistricts", "district_id", districtId, options);
  }

  /**
   * Prices a domestic shipment for one or several couriers (form-encoded). Retried as a read, never cached.
   * Throws {@link NoCourierServiceError} when no courier serves the route, {@link InvalidCourierError} for an
   * unknown code.
   *
   * @example
   * const { data } = await shipping.calculateDomesticCost({ origin: 31555, destination: 68423, weight: 1000, courier: "jne:pos" });
   */
  async calculateDomesticCost(
    input: DomesticCostInput,
    options?: RequestOptions,
  ): Promise<ApiResponse<CourierCostOption[]>> {
    return this.#cost("calculateDomesticCost", domesticCostInputSchema, input, options);
  }

  /**
   * Same as {@link ShippingClient.calculateDomesticCost} on the district-level endpoint (ordered by ascending cost).
   *
   * @example
   * const { data } = await shipping.calculateDistrictDomesticCost({ origin: 1360, destination: 1391, weight: 500, courier: "sicepat" });
   */
  async calculateDistrictDomesticCost(
    input: DomesticCostInput,
    options?: RequestOptions,
  ): Promise<ApiResponse<CourierCostOption[]>> {
    return this.#cost("calculateDistrictDomesticCost", domesticCostInputSchema, input, options);
  }

  /**
   * Prices an international shipment: `origin` a domestic destination id, `destination` a `country_id`.
   * Options carry `currency`.
   *
   * @example
   * const { data } = await shipping.calculateInternationalCost({ origin: 31555, destination: "108", weight: 500, courier: "pos" });
   */
  async calculateInternationalCost(
    input: InternationalCostInput,
    options?: RequestOptions,
  ): Promise<ApiResponse<CourierCostOption[]>> {
    return this.#cost("calculateInternationalCost", internationalCostInputSchema, input, options);
  }

  /**
   * Tracks a waybill (`awb`, `courier` and, for JNE, `last_phone_number` = last 5 digits of the receiver's phone),
   * sent as query parameters. Retried as a read, never cached. Manifest entries may be out of order: see
   * `sortManifest`.
   *
   * @example
   * const { data } = await shipping.trackWaybill({ awb: "CGK1234567890", courier: "jne", last_phone_number: "12345" });
   */
  async trackWaybill(input: TrackWaybillInput, options?: RequestOptions): Promise<ApiResponse<Waybill>> {
    const query = parseRequestInput(trackWaybillInputSchema, input, "trackWaybill");
    return this.#transport.request(
      Object.assign(this.#read("trackWaybill"), { method: "POST" as const, query, schema: waybillSchema }),
      options,
    );
  }

  // Callers add their fields with Object.assign, not a spread: V8 takes a far slower path for a spread followed by
  // more properties, and this runs on every call.
  #read(operation: ShippingOperation) {
    return {
      operation,
      method: "GET" as HttpMethod,
      path: SHIPPING_PATHS[operation],
      idempotent: true,
      envelope: "meta" as const,
      mapError: mapShippingError,
    };
  }

  #search(
    operation: ShippingOperation,
    query: { search: string; limit?: number | undefined; offset?: number | undefined },
  ) {
    return Object.assign(this.#read(operation), { query, recover: emptyListWhenNotFound });
  }

  #lookup<T>(operation: OperationRequest<T>, options: RequestOptions | undefined): Promise<ApiResponse<T>> {
    return cachedRequest(this.#transport, this.#cache, operation, options);
  }

  #children(
    operation: "listCities" | "listDistricts" | "listSubdistricts",
    param: keyof typeof lookupIdSchemas,
    id: IdInput,
    options: RequestOptions | undefined,
  ): Promise<ApiResponse<LocationRecord[]>> {
    const input = parseRequestInput(lookupIdSchemas[param], { [param]: id }, operation);
    return this.#lookup<LocationRecord[]>(
      Object.assign(this.#read(operation), {
        pathParams: input as Record<string, string | number>,
        schema: locationsSchema,
        recover: emptyListWhenNotFound,
      }),
      options,
    );
  }

  #cost(
    operation: "calculateDomesticCost" | "calculateDistrictDomesticCost" | "calculateInternationalCost",
    schema: typeof domesticCostInputSchema,
    input: DomesticCostInput,
    options: RequestOptions | undefined,
  ): Promise<ApiResponse<CourierCostOption[]>> {
    const form = parseRequestInput(schema, input, operation);
    return this.#transport.request(
      Object.assign(this.#read(operation), {
        method: "POST" as const,
        body: { form },
        schema: courierCostOptionsSchema,
      }),
      options,
    );
  }

  async *#pages<T>(
    fetchPage: (limit: number, offset: number) => Promise<ApiResponse<T[]>>,
    pageSize: number,
    maxPages: number,
  ): AsyncGenerator<T, void, undefined> {
    for (let page = 0; page < maxPages; page++) {
      const { data } = await fetchPage(pageSize, page * pageSize);
      yield* data;
      if (data.length < pageSize) return;
    }
  }
}
