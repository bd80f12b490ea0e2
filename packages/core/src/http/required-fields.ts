import { ResponseShapeError } from "../errors/validation.js";
import type { ApiResponse } from "./api-response.js";

/**
 * Collects the fields a client's result must carry (what the flow relies on), each taken from the response or
 * derived by a documented rule, and throws one {@link ResponseShapeError} naming every field that is neither.
 *
 * @example
 * const fields = new RequiredFields();
 * const status = fields.take("status", data.status);
 * fields.check(response, "getPaymentStatus"); // throws when status was missing
 */
export class RequiredFields {
  readonly #missing: string[] = [];

  /** The value, else what `derive` gives; recorded as missing when both are absent (`null`/`undefined`/`""`). */
  take<T>(name: string, value: T | null | undefined, derive?: () => T | null | undefined): T {
    if (present(value)) return value;
    const derived = derive?.();
    if (present(derived)) return derived;
    this.#missing.push(name);
    return undefined as T;
  }

  /** Records `name` as missing unless `ok`. */
  expect(name: string, ok: boolean): void {
    if (!ok) this.#missing.push(name);
  }

  /** Throws a {@link ResponseShapeError} carrying the raw body when any field was missing. */
  check(response: ApiResponse<unknown>, operation: string): void {
    if (this.#missing.length === 0) return;
    throw new ResponseShapeError({
      missing: this.#missing,
      operation,
      status: response.status,
      rawBody: response.rawBody,
    });
  }
}

function present<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null && value !== "";
}
