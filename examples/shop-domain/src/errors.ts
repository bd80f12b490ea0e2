import { ApiError, KirimbayarError, NoCourierServiceError, RequestValidationError } from "@kirimbayar/core";

/** Why a shop operation failed, each mapped to one HTTP status by {@link shopErrorStatus}. */
export type ShopErrorCode = "invalid_request" | "not_found" | "conflict" | "provider_error";

/**
 * An error the shop answers to its client. Every framework example maps it to the same status and JSON body with
 * {@link shopErrorStatus} and {@link ShopError.toJSON}.
 *
 * @example
 * throw new ShopError("not_found", "Order ORD-000009 does not exist");
 */
export class ShopError extends Error {
  readonly code: ShopErrorCode;
  /** Field-level problems of an invalid request. */
  readonly issues: { path: string; message: string }[];

  constructor(code: ShopErrorCode, message: string, options: { issues?: ShopError["issues"]; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ShopError";
    this.code = code;
    this.issues = options.issues ?? [];
  }

  /** The response body: `{ error: { code, message, issues? } }`. */
  toJSON(): { error: { code: ShopErrorCode; message: string; issues?: ShopError["issues"] } } {
    return {
      error: { code: this.code, message: this.message, ...(this.issues.length > 0 ? { issues: this.issues } : {}) },
    };
  }
}

const STATUS: Record<ShopErrorCode, number> = {
  invalid_request: 400,
  not_found: 404,
  conflict: 409,
  provider_error: 502,
};

/**
 * The HTTP status of a shop error.
 *
 * @example
 * shopErrorStatus(new ShopError("not_found", "...")); // 404
 */
export function shopErrorStatus(error: ShopError): number {
  return STATUS[error.code];
}

/**
 * Translates what a kirimbayar client threw into the shop's answer: bad input stays a 400 with every field listed,
 * a route no courier serves is a 404, anything else from the provider is a 502 whose message names the operation
 * but never a key. Errors that are not kirimbayar's are rethrown untouched (they are bugs, not provider trouble).
 *
 * @example
 * try { await shipping.calculateDomesticCost(input) } catch (e) { throw toShopError(e) }
 */
export function toShopError(error: unknown): ShopError {
  if (error instanceof ShopError) return error;
  if (error instanceof RequestValidationError) {
    return new ShopError("invalid_request", error.message, {
      issues: error.issues.map((issue) => ({ path: issue.path, message: issue.message })),
      cause: error,
    });
  }
  if (error instanceof NoCourierServiceError) {
    return new ShopError("not_found", "No courier serves this route", { cause: error });
  }
  if (error instanceof ApiError) {
    return new ShopError("provider_error", `The provider refused the request (HTTP ${error.status})`, { cause: error });
  }
  if (error instanceof KirimbayarError) {
    return new ShopError("provider_error", `The provider could not be reached (${error.code})`, { cause: error });
  }
  throw error;
}
