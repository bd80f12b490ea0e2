import type { z } from "zod";
import type { ApiResponse } from "../http/api-response.js";
import type { ClientOptions, RequestOptions } from "../http/options.js";
import type { FieldValue } from "../http/request-body.js";
import { Transport } from "../http/transport.js";
import { parseRequestInput } from "../http/validate-input.js";
import { cachedRequest } from "./cached-request.js";
import { type KeyPlacement, legacyCredentials, legacyOperation, resultsList } from "./legacy-wrapper.js";
import { createLookupCache, type LookupCache, type LookupCacheOptions } from "./lookup-cache.js";
import {
  type CityQueryInput,
  cityQueryInputSchema,
  type ProCity,
  type ProCostResult,
  type ProProvince,
  type ProvinceQueryInput,
  proCitySchema,
  proCostResultSchema,
  proProvinceSchema,
  provinceQueryInputSchema,
} from "./pro-schemas.js";
import { type StarterCostInput, starterCostInputSchema } from "./starter-schemas.js";

// Response schemas built once, not per call: building one costs more than parsing a response with it.
const provincesResult = resultsList(proProvinceSchema);
const citiesResult = resultsList(proCitySchema);

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
  readonly #transport: Transport;
  readonly #cache: LookupCache<ApiResponse<unknown>> | undefined;

  constructor(options: ShippingStarterClientOptions) {
    this.#transport = new Transport(options, legacyCredentials(options));
    this.#cache = createLookupCache(options.cache, options.clock ?? Date.now);
  }

  /**
   * Lists provinces; with `id`, just that one (still as a list). Cached when the client has a cache.
   *
   * @example
   * const { data } = await starter.listProvinces();
   */
  async listProvinces(input: ProvinceQueryInput = {}, options?: RequestOptions): Promise<ApiResponse<ProProvince[]>> {
    const query = parseRequestInput(provinceQueryInputSchema, input, "listProvinces");
    return this.#lookup("listProvinces", query, provincesResult, options);
  }

  /**
   * Lists cities, optionally of one province or one city by `id`. Cached when the client has a cache.
   *
   * @example
   * const { data } = await starter.listCities({ province: "5" });
   */
  async listCities(input: CityQueryInput = {}, options?: RequestOptions): Promise<ApiResponse<ProCity[]>> {
    const query = parseRequestInput(cityQueryInputSchema, input, "listCities");
    return this.#lookup("listCities", query, citiesResult, options);
  }

  /**
   * Prices a city-to-city shipment (form-encoded) for `jne`, `pos` and/or `tiki`. Retried as a read, never cached.
   *
   * @example
   * const { data } = await starter.calculateCost({ origin: 501, destination: 114, weight: 1000, courier: ["jne", "pos"] });
   */
  async calculateCost(input: StarterCostInput, options?: RequestOptions): Promise<ApiResponse<ProCostResult>> {
    const form = parseRequestInput(starterCostInputSchema, input, "calculateCost");
    return this.#transport.request(
      Object.assign(this.#base("calculateCost", "POST"), { body: { form }, schema: proCostResultSchema }),
      options,
    );
  }

  #base(operation: ShippingStarterOperation, method: "GET" | "POST") {
    return legacyOperation(operation, SHIPPING_STARTER_PATHS[operation], method);
  }

  #lookup<T>(
    operation: ShippingStarterOperation,
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
}
