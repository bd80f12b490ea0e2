import type { ApiResponse } from "../http/api-response.js";
import type { ClientOptions, RequestOptions } from "../http/options.js";
import { tagShippingAccount } from "./account.js";
import { LegacyRequests } from "./legacy-requests.js";
import { type LegacyKeyOptions, resultsList, singleResult } from "./legacy-wrapper.js";
import type { LookupCacheOptions } from "./lookup-cache.js";
import {
  type CityQueryInput,
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
  proCostInputSchema,
  proCostResultSchema,
  proCurrencySchema,
  proInternationalCostInputSchema,
  proInternationalCostResultSchema,
  proInternationalDestinationSchema,
  proInternationalOriginSchema,
  proSubdistrictSchema,
  proWaybillInputSchema,
  proWaybillSchema,
  type SubdistrictQueryInput,
  subdistrictQueryInputSchema,
} from "./pro-schemas.js";

// Response schemas built once, not per call: building one costs more than parsing a response with it.
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
  readonly #requests: LegacyRequests<ShippingProOperation>;

  constructor(options: ShippingProClientOptions) {
    this.#requests = new LegacyRequests(options, SHIPPING_PRO_PATHS);
    tagShippingAccount(this, "pro", [options.baseUrl, options.apiKey, options.androidKey, options.iosKey]);
  }

  /**
   * Lists provinces; with `id`, just that one (still as a list). Cached when the client has a cache.
   *
   * @example
   * const { data } = await pro.listProvinces({ id: "9" });
   */
  async listProvinces(input: ProvinceQueryInput = {}, options?: RequestOptions): Promise<ApiResponse<ProProvince[]>> {
    return this.#requests.listProvinces(input, options);
  }

  /**
   * Lists cities, optionally of one province or one city by `id`.
   *
   * @example
   * const { data } = await pro.listCities({ province: "9" });
   */
  async listCities(input: CityQueryInput = {}, options?: RequestOptions): Promise<ApiResponse<ProCity[]>> {
    return this.#requests.listCities(input, options);
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
    return this.#requests.lookup("listSubdistricts", subdistrictQueryInputSchema, input, subdistrictsResult, options);
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
    return this.#requests.post("calculateCost", proCostInputSchema, input, proCostResultSchema, options);
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
    return this.#requests.lookup(
      "listInternationalOrigins",
      internationalOriginQueryInputSchema,
      input,
      internationalOriginsResult,
      options,
    );
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
    return this.#requests.lookup(
      "listInternationalDestinations",
      internationalDestinationQueryInputSchema,
      input,
      internationalDestinationsResult,
      options,
    );
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
    return this.#requests.post(
      "calculateInternationalCost",
      proInternationalCostInputSchema,
      input,
      proInternationalCostResultSchema,
      options,
    );
  }

  /**
   * The rupiah rate against the US dollar. Never cached (the rate moves).
   *
   * @example
   * const { data } = await pro.getCurrency(); // { value: 16250, ... }
   */
  async getCurrency(options?: RequestOptions): Promise<ApiResponse<ProCurrency>> {
    return this.#requests.get("getCurrency", currencyResult, options);
  }

  /**
   * Tracks a waybill (form-encoded POST; any single courier code, `PRO_WAYBILL_COURIER_CODES` lists the known
   * ones). Never cached.
   *
   * @example
   * const { data } = await pro.trackWaybill({ waybill: "SOCAG00183235715", courier: "jnt" });
   */
  async trackWaybill(input: ProWaybillInput, options?: RequestOptions): Promise<ApiResponse<ProWaybill>> {
    return this.#requests.post("trackWaybill", proWaybillInputSchema, input, waybillResult, options);
  }
}
