import type { z } from "zod";
import type { ApiResponse } from "../http/api-response.js";
import type { ClientOptions, RequestOptions } from "../http/options.js";
import type { FieldValue } from "../http/request-body.js";
import { Transport } from "../http/transport.js";
import { parseRequestInput } from "../http/validate-input.js";
import { cachedRequest } from "./cached-request.js";
import { type LegacyKeyOptions, legacyCredentials, legacyOperation, resultsList } from "./legacy-wrapper.js";
import { createLookupCache, type LookupCache, type LookupCacheOptions } from "./lookup-cache.js";
import {
  type CityQueryInput,
  cityQueryInputSchema,
  type ProCity,
  type ProProvince,
  type ProvinceQueryInput,
  proCitySchema,
  proProvinceSchema,
  provinceQueryInputSchema,
} from "./pro-schemas.js";

// Response schemas built once, not per call: building one costs more than parsing a response with it.
const provincesResult = resultsList(proProvinceSchema);
const citiesResult = resultsList(proCitySchema);

/** The lookups both the Pro and the Starter interface offer, with the same input and records. */
type SharedLookup = "listProvinces" | "listCities";

/** What the Pro and Starter client options have in common. */
type LegacyClientOptions<O extends string> = ClientOptions<O> &
  LegacyKeyOptions & { cache?: LookupCacheOptions | false };

/** Query or form fields, once validated. */
type Fields = Record<string, FieldValue>;

/**
 * The machinery the Pro and Starter clients share: one transport with the legacy keys, the lookup cache, the
 * provinces/cities lookups both interfaces offer, and the two ways they send. Each client keeps one in a private
 * field (not a base class), so neither client shows the other's methods and their public declarations are unchanged.
 * Every call validates its input before anything is sent; only `lookup` goes through the cache.
 *
 * @example
 * readonly #requests = new LegacyRequests<ShippingStarterOperation>(options, SHIPPING_STARTER_PATHS);
 */
export class LegacyRequests<O extends string> {
  readonly #transport: Transport;
  readonly #cache: LookupCache<ApiResponse<unknown>> | undefined;
  readonly #paths: Readonly<Record<O | SharedLookup, string>>;

  constructor(options: LegacyClientOptions<O>, paths: Readonly<Record<O | SharedLookup, string>>) {
    this.#transport = new Transport(options, legacyCredentials(options));
    this.#cache = createLookupCache(options.cache, options.clock ?? Date.now);
    this.#paths = paths;
  }

  // The two lookups both interfaces offer; the public methods (and their TSDoc) stay on each client.
  listProvinces(input: ProvinceQueryInput, options: RequestOptions | undefined): Promise<ApiResponse<ProProvince[]>> {
    return this.lookup("listProvinces", provinceQueryInputSchema, input, provincesResult, options);
  }

  listCities(input: CityQueryInput, options: RequestOptions | undefined): Promise<ApiResponse<ProCity[]>> {
    return this.lookup("listCities", cityQueryInputSchema, input, citiesResult, options);
  }

  /** A static lookup: validated `input` sent as the query of a GET, answered from the cache when there is one. */
  lookup<T>(
    operation: O | SharedLookup,
    inputSchema: z.ZodType<Fields>,
    input: unknown,
    schema: z.ZodType<T>,
    options: RequestOptions | undefined,
  ): Promise<ApiResponse<T>> {
    const query = parseRequestInput(inputSchema, input, operation);
    return cachedRequest(
      this.#transport,
      this.#cache,
      Object.assign(this.#operation(operation, "GET"), { query, schema }),
      options,
    );
  }

  /** A form-encoded POST of validated `input` (costs, tracking): never cached, the answer can change. */
  post<T>(
    operation: O,
    inputSchema: z.ZodType<Fields>,
    input: unknown,
    schema: z.ZodType<T>,
    options: RequestOptions | undefined,
  ): Promise<ApiResponse<T>> {
    const form = parseRequestInput(inputSchema, input, operation);
    return this.#transport.request(
      Object.assign(this.#operation(operation, "POST"), { body: { form }, schema }),
      options,
    );
  }

  /** A GET without input (the currency rate): never cached, the answer can change. */
  get<T>(operation: O, schema: z.ZodType<T>, options: RequestOptions | undefined): Promise<ApiResponse<T>> {
    return this.#transport.request(Object.assign(this.#operation(operation, "GET"), { schema }), options);
  }

  #operation(operation: O | SharedLookup, method: "GET" | "POST") {
    return legacyOperation(operation, this.#paths[operation], method);
  }
}
