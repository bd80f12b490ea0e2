import type { z } from "zod";
import type { ApiResponse } from "../http/api-response.js";
import type { ClientOptions, RequestOptions } from "../http/options.js";
import type { FieldValue } from "../http/request-body.js";
import { Transport } from "../http/transport.js";
import { parseRequestInput } from "../http/validate-input.js";
import { cachedRequest } from "./cached-request.js";
import {
  type LegacyKeyOptions,
  legacyCredentials,
  legacyOperation,
  resultsList,
  singleResult,
} from "./legacy-wrapper.js";
import { createLookupCache, type LookupCache, type LookupCacheOptions } from "./lookup-cache.js";
import {
  type CityQueryInput,
  cityQueryInputSchema,
  type InternationalDestinationQueryInput,
  type InternationalOriginQueryInput,
  internationalDestinationQueryInputSchema,
  internationalOriginQueryInputSchema,
  type ProCity,
  type ProCostInput,
  type ProCostResult,
  type ProCurrency,
  type ProInternationalCostInput,
  type ProInternationalCostResult,
  type ProInternationalDestination,
  type ProInternationalOrigin,
  type ProProvince,
  type ProSubdistrict,
  type ProvinceQueryInput,
  type ProWaybill,
  type ProWaybillInput,
  proCitySchema,
  proCostInputSchema,
  proCostResultSchema,
  proCurrencySchema,
  proInternationalCostInputSchema,
  proInternationalCostResultSchema,
  proInternationalDestinationSchema,
  proInternationalOriginSchema,
  proProvinceSchema,
  proSubdistrictSchema,
  provinceQueryInputSchema,
  proWaybillInputSchema,
  proWaybillSchema,
  type SubdistrictQueryInput,
  subdistrictQueryInputSchema,
} from "./pro-schemas.js";

// Response schemas built once, not per call: building one costs more than parsing a response with it.
const provincesResult = resultsList(proProvinceSchema);
const citiesResult = resultsList(proCitySchema);
const subdistrictsResult = resultsList(proSubdistrictSchema);
const internationalOriginsResult = resultsList(proInternationalOriginSchema);
const internationalDestinationsResult = resultsList(proInternationalDestinationSchema);
const currencyResult = singleResult(proCurrencySchema);
const waybillResult = singleResult(proWaybillSchema);

/** Operation names of {@link ShippingProClient}, also the keys of its `paths` option. */
export type ShippingProOperation =
  | "listProvinces"
  | "listCities"
  | "listSubdistricts"
  | "calculateCost"
  | "listInternationalOrigins"
  | "listInternationalDestinations"
  | "calculateInternationalCost"
  | "getCurrency"
  | "trackWaybill";

/** Default paths of the Pro interface (the spec, completed by the field notes for the `/api/v2` international ones). */
export const SHIPPING_PRO_PATHS: Readonly<Record<ShippingProOperation, string>> = {
  listProvinces: "/api/province",
  listCities: "/api/city",
  listSubdistricts: "/api/subdistrict",
  calculateCost: "/api/cost",
  listInternationalOrigins: "/api/v2/internationalOrigin",
  listInternationalDestinations: "/api/v2/internationalDestination",
  calculateInternationalCost: "/api/v2/internationalCost",
  getCurrency: "/api/currency",
  trackWaybill: "/api/waybill",
};

/**
 * Options of {@link ShippingProClient}.
 *
 * @example
 * const options: ShippingProClientOptions = { apiKey: env.PRO_KEY, baseUrl: env.PRO_URL, androidKey: env.ANDROID_KEY };
 */
export interface ShippingProClientOptions extends ClientOptions<ShippingProOperation>, LegacyKeyOptions {
  /**
   * Cache provinces, cities, subdistricts and international origins/destinations. Off by default; `{}` turns it
   * on (6 h TTL, 500 entries). Costs, currency and tracking are never cached.
   */
  cache?: LookupCacheOptions | false;
}

/**
 * Client of the Pro shipping interface (`{ rajaongkir: { ... } }` wrapper). Keys travel as headers `key`,
 * `android-key`, `ios-key` by default (`keyPlacement: "param"` sends them as parameters); they are redacted from
 * everything kept on results and errors, including the `query` the provider echoes.
 *
 * @example
 * const pro = new ShippingProClient({ apiKey: env.PRO_KEY, baseUrl: "https://pro.example.id" });
 * const { data } = await pro.calculateCost({ origin: "501", originType: "city", destination: "574",
 *   destinationType: "subdistrict", weight: 1700, courier: ["jne", "tiki"] });
 * for (const courier of data.results) for (const s of courier.costs) console.log(courier.code, s.service, s.cost[0]?.value);
 */
export class ShippingProClient {
  readonly #transport: Transport;
  readonly #cache: LookupCache<ApiResponse<unknown>> | undefined;

  constructor(options: ShippingProClientOptions) {
    this.#transport = new Transport(options, legacyCredentials(options));
    this.#cache = createLookupCache(options.cache, options.clock ?? Date.now);
  }

  /**
   * Lists provinces; with `id`, just that one (still as a list). Cached when the client has a cache.
   *
   * @example
   * const { data } = await pro.listProvinces({ id: "9" });
   */
  async listProvinces(input: ProvinceQueryInput = {}, options?: RequestOptions): Promise<ApiResponse<ProProvince[]>> {
    const query = parseRequestInput(provinceQueryInputSchema, input, "listProvinces");
    return this.#lookup("listProvinces", query, provincesResult, options);
  }

  /**
   * Lists cities, optionally of one province or one city by `id`.
   *
   * @example
   * const { data } = await pro.listCities({ province: "9" });
   */
  async listCities(input: CityQueryInput = {}, options?: RequestOptions): Promise<ApiResponse<ProCity[]>> {
    const query = parseRequestInput(cityQueryInputSchema, input, "listCities");
    return this.#lookup("listCities", query, citiesResult, options);
  }

  /**
   * Lists the subdistricts of a city, or one by `id`.
   *
   * @example
   * const { data } = await pro.listSubdistricts({ city: "39" });
   */
  async listSubdistricts(
    input: SubdistrictQueryInput,
    options?: RequestOptions,
  ): Promise<ApiResponse<ProSubdistrict[]>> {
    const query = parseRequestInput(subdistrictQueryInputSchema, input, "listSubdistricts");
    return this.#lookup("listSubdistricts", query, subdistrictsResult, options);
  }

  /**
   * Prices a shipment between cities and/or subdistricts (form-encoded). Dimensions (cm) need exactly one courier.
   * Retried as a read, never cached.
   *
   * @example
   * const { data } = await pro.calculateCost({ origin: 501, originType: "city", destination: 114,
   *   destinationType: "city", weight: 1000, courier: "jne", length: 20, width: 10, height: 5 });
   */
  async calculateCost(input: ProCostInput, options?: RequestOptions): Promise<ApiResponse<ProCostResult>> {
    const form = parseRequestInput(proCostInputSchema, input, "calculateCost");
    return this.#post("calculateCost", form, proCostResultSchema, options);
  }

  /**
   * Lists international origins (cities), optionally of one province or by `id`. Cached when the client has a cache.
   *
   * @example
   * const { data } = await pro.listInternationalOrigins({ province: "6" });
   */
  async listInternationalOrigins(
    input: InternationalOriginQueryInput = {},
    options?: RequestOptions,
  ): Promise<ApiResponse<ProInternationalOrigin[]>> {
    const query = parseRequestInput(internationalOriginQueryInputSchema, input, "listInternationalOrigins");
    return this.#lookup("listInternationalOrigins", query, internationalOriginsResult, options);
  }

  /**
   * Lists destination countries, or one by `id`. Cached when the client has a cache.
   *
   * @example
   * const { data } = await pro.listInternationalDestinations();
   */
  async listInternationalDestinations(
    input: InternationalDestinationQueryInput = {},
    options?: RequestOptions,
  ): Promise<ApiResponse<ProInternationalDestination[]>> {
    const query = parseRequestInput(internationalDestinationQueryInputSchema, input, "listInternationalDestinations");
    return this.#lookup("listInternationalDestinations", query, internationalDestinationsResult, options);
  }

  /**
   * Prices an international shipment from a city to a country. Costs are decimals in `currency` (`IDR`/`USD`).
   *
   * @example
   * const { data } = await pro.calculateInternationalCost({ origin: "152", destination: "108", weight: 1400, courier: "pos" });
   */
  async calculateInternationalCost(
    input: ProInternationalCostInput,
    options?: RequestOptions,
  ): Promise<ApiResponse<ProInternationalCostResult>> {
    const form = parseRequestInput(proInternationalCostInputSchema, input, "calculateInternationalCost");
    return this.#post("calculateInternationalCost", form, proInternationalCostResultSchema, options);
  }

  /**
   * The rupiah rate against the US dollar. Never cached (the rate moves).
   *
   * @example
   * const { data } = await pro.getCurrency(); // { value: 16250, ... }
   */
  async getCurrency(options?: RequestOptions): Promise<ApiResponse<ProCurrency>> {
    return this.#transport.request(
      Object.assign(this.#base("getCurrency", "GET"), { schema: currencyResult }),
      options,
    );
  }

  /**
   * Tracks a waybill (`courier` must be in `PRO_WAYBILL_COURIER_CODES`; form-encoded POST). Never cached.
   *
   * @example
   * const { data } = await pro.trackWaybill({ waybill: "SOCAG00183235715", courier: "jnt" });
   */
  async trackWaybill(input: ProWaybillInput, options?: RequestOptions): Promise<ApiResponse<ProWaybill>> {
    const form = parseRequestInput(proWaybillInputSchema, input, "trackWaybill");
    return this.#post("trackWaybill", form, waybillResult, options);
  }

  #base(operation: ShippingProOperation, method: "GET" | "POST") {
    return legacyOperation(operation, SHIPPING_PRO_PATHS[operation], method);
  }

  #lookup<T>(
    operation: ShippingProOperation,
    query: Record<string, FieldValue>,
    schema: z.ZodType<T>,
    options: RequestOptions | undefined,
  ): Promise<ApiResponse<T>> {
    return cachedRequest(
      this.#transport,
      this.#cache,
      Object.assign(this.#base(operation, "GET"), { query, schema }),
      options,
    );
  }

  #post<T>(
    operation: ShippingProOperation,
    form: Record<string, FieldValue>,
    schema: z.ZodType<T>,
    options: RequestOptions | undefined,
  ): Promise<ApiResponse<T>> {
    return this.#transport.request(Object.assign(this.#base(operation, "POST"), { body: { form }, schema }), options);
  }
}
