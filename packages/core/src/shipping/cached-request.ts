import type { ApiResponse } from "../http/api-response.js";
import type { OperationRequest } from "../http/operation.js";
import type { RequestOptions } from "../http/options.js";
import type { Transport } from "../http/transport.js";
import type { LookupCache } from "./lookup-cache.js";

/**
 * Sends a static lookup through the client's cache: a fresh hit answers without a request, a miss is sent and its
 * successful answer stored. Errors are never cached. The key is operation + path parameters + query (each client
 * owns its cache, so the key needs no credential). Hits hand out a copy of `data`, so a caller mutating a result
 * cannot change what the next caller gets.
 *
 * @example
 * return cachedRequest(this.#transport, this.#cache, operation, options);
 */
export async function cachedRequest<T>(
  transport: Transport,
  cache: LookupCache<ApiResponse<unknown>> | undefined,
  operation: OperationRequest<T>,
  options: RequestOptions | undefined,
): Promise<ApiResponse<T>> {
  if (cache === undefined) return transport.request(operation, options);
  const key = JSON.stringify([operation.operation, operation.pathParams ?? {}, operation.query ?? {}]);
  const hit = cache.get(key) as ApiResponse<T> | undefined;
  if (hit !== undefined) return { ...hit, data: structuredClone(hit.data) };
  const response = await transport.request(operation, options);
  cache.set(key, { ...response, data: structuredClone(response.data) });
  return response;
}
