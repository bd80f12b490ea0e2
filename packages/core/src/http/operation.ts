import type { z } from "zod";
import type { ApiError } from "../errors/api-error.js";
import type { EnvelopeKind } from "./envelope.js";
import type { ErrorMapper } from "./error-factory.js";
import type { FieldValue, RequestBody } from "./request-body.js";

/** HTTP methods the clients use. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * One call of one API operation, as a client hands it to {@link Transport.request}.
 *
 * @example
 * transport.request({
 *   operation: "getPaymentStatus", method: "GET", path: "/user/api/v1/user/payment/status/{payment_id}",
 *   pathParams: { payment_id: id }, idempotent: true, envelope: "meta", schema: paymentStatusSchema,
 * });
 */
export interface OperationRequest<T> {
  /** Operation name; also the key of the client's `paths` override. */
  operation: string;
  method: HttpMethod;
  /** Default path template (`{name}` placeholders are URL-encoded from `pathParams`). */
  path: string;
  pathParams?: Record<string, string | number>;
  query?: Record<string, FieldValue>;
  /** Extra headers of this operation. */
  headers?: Record<string, string>;
  body?: RequestBody;
  /**
   * `true` for reads (lookups, searches, cost, status): retried on network errors, timeouts, 429 and 5xx.
   * `false` for writes: sent exactly once.
   */
  idempotent: boolean;
  /** Which envelope to strip before `schema` parses the payload. */
  envelope: EnvelopeKind;
  /** Tolerant schema of the unwrapped payload. */
  schema: z.ZodType<T>;
  /** Turns specific provider answers into dedicated errors (see {@link ErrorMapper}). */
  mapError?: ErrorMapper;
  /** Turns an error into a successful result (e.g. 404 "not found" of a search → `[]`); `undefined` to rethrow. */
  recover?: (error: ApiError) => T | undefined;
  /** Extra secrets of this call (e.g. `callback_api_key`) to redact from anything kept on results and errors. */
  secrets?: readonly string[];
}
