import type { ApiResponse } from "../http/api-response.js";
import type { ClientOptions, RequestOptions } from "../http/options.js";
import { tagShippingAccount } from "./account.js";
import { LegacyRequests } from "./legacy-requests.js";
import type { KeyPlacement } from "./legacy-wrapper.js";
import type { LookupCacheOptions } from "./lookup-cache.js";
import {
  type CityQueryInput,
  type ProCity,
  type ProCostResult,
  type ProProvince,
  type ProvinceQueryInput,
  proCostResultSchema,
} from "./pro-schemas.js";
import { type StarterCostInput, starterCostInputSchema } from "./starter-schemas.js";

/** Operation names of {@link ShippingStarterClient}, also the keys of its `paths` option. */
export type ShippingStarterOperation = "listProvinces" | "listCities" | "calculateCost";

/** Default paths of the Starter interface (as the spec gives them). */
export const SHIPPING_STARTER_PATHS: Readonly<Record<ShippingStarterOperation, string>> = {
  listProvinces: "/starter/province",
  listCities: "/starter/city",
  calculateCost: "/starter/cost",
};

/**
 * Options of {@link ShippingStarterClient}.
 *
 * @example
 * const options: ShippingStarterClientOptions = { apiKey: env.STARTER_KEY, baseUrl: env.STARTER_URL };
 */
export interface ShippingStarterClientOptions extends ClientOptions<ShippingStarterOperation> {
  /** Sent as `android-key` when an Android referrer restriction is enabled. */
  androidKey?: string;
  /** Sent as `ios-key` when an iOS referrer restriction is enabled. */
  iosKey?: string;
  /** `"header"` (default) or `"param"` (query for GET, form field for POST). */
  keyPlacement?: KeyPlacement;
  /** Cache provinces and cities. Off by default; `{}` turns it on (6 h TTL, 500 entries). Cost is never cached. */
  cache?: LookupCacheOptions | false;
}

/**
 * Client of the free Starter shipping interface: provinces, cities and city-to-city cost for `jne`, `pos` and
 * `tiki` only (any other courier is refused before sending).
 *
 * @example
 * const starter = new ShippingStarterClient({ apiKey: env.STARTER_KEY, baseUrl: "https://starter.example.id" });
 * const { data } = await starter.calculateCost({ origin: "501", destination: "114", weight: 1700, courier: "jne" });
 */
export class ShippingStarterClient {
  readonly #requests: LegacyRequests<ShippingStarterOperation>;

  constructor(options: ShippingStarterClientOptions) {
    this.#requests = new LegacyRequests(options, SHIPPING_STARTER_PATHS);
    tagShippingAccount(this, "starter", [options.baseUrl, options.apiKey, options.androidKey, options.iosKey]);
  }

  /**
   * Lists provinces; with `id`, just that one (still as a list). Cached when the client has a cache.
   *
   * @example
   * const { data } = await starter.listProvinces();
   */
  async listProvinces(input: ProvinceQueryInput = {}, options?: RequestOptions): Promise<ApiResponse<ProProvince[]>> {
    return this.#requests.listProvinces(input, options);
  }

  /**
   * Lists cities, optionally of one province or one city by `id`. Cached when the client has a cache.
   *
   * @example
   * const { data } = await starter.listCities({ province: "5" });
   */
  async listCities(input: CityQueryInput = {}, options?: RequestOptions): Promise<ApiResponse<ProCity[]>> {
    return this.#requests.listCities(input, options);
  }

  /**
   * Prices a city-to-city shipment (form-encoded) for `jne`, `pos` and/or `tiki`. Retried as a read, never cached.
   *
   * @example
   * const { data } = await starter.calculateCost({ origin: 501, destination: 114, weight: 1000, courier: ["jne", "pos"] });
   */
  async calculateCost(input: StarterCostInput, options?: RequestOptions): Promise<ApiResponse<ProCostResult>> {
    return this.#requests.post("calculateCost", starterCostInputSchema, input, proCostResultSchema, options);
  }
}
