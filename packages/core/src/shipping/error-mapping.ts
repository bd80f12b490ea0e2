import {
  type ApiError,
  InvalidCourierError,
  MissingParameterError,
  NoCourierServiceError,
  NotFoundError,
} from "../errors/api-error.js";
import { defaultErrorMessage, type ErrorMapper, messageIncludes } from "../http/error-factory.js";

const isInvalidCourier = (message: string | undefined) =>
  /courier/i.test(message ?? "") && /invalid|not valid|tidak valid|tidak dikenal|unknown/i.test(message ?? "");

const isMissingParameter = (message: string | undefined) =>
  /missing|required|harus diisi|wajib|tidak boleh kosong/i.test(message ?? "");

/**
 * Maps the shipping error tables to dedicated errors, by body code/message whatever the HTTP status:
 * "Calculate … not found" → {@link NoCourierServiceError} (permanent, never retried),
 * "Invalid Courier" → {@link InvalidCourierError}, "Parameter Missing"/"Missing Params" →
 * {@link MissingParameterError}. Anything else falls back to the generic factory (auth, 429, 404, 5xx).
 *
 * @example
 * transport.request({ ..., mapError: mapShippingError });
 */
export const mapShippingError: ErrorMapper = (context, details) => {
  const status = context.effectiveStatus;
  const message = context.outcome.message;
  if (status >= 500 || status === 429 || status === 401 || status === 403) return undefined;
  if (messageIncludes(message, "calculate") && messageIncludes(message, "not found")) {
    return new NoCourierServiceError(
      `No courier serves this route (${message}); this is permanent for these parameters. ${defaultErrorMessage(context)}`,
      { ...details, retryable: false },
    );
  }
  if (isInvalidCourier(message)) return new InvalidCourierError(defaultErrorMessage(context), details);
  if (isMissingParameter(message) && !/key/i.test(message ?? "")) {
    return new MissingParameterError(defaultErrorMessage(context), details);
  }
  return undefined;
};

/**
 * Turns "no match" of a lookup (a body code 404 whose message says "not found", e.g. "Domestic Destinations Data not
 * found") into an empty list. A 404 without that body (a wrong base URL or path) still throws.
 *
 * @example
 * transport.request({ ..., recover: emptyListWhenNotFound });
 */
export function emptyListWhenNotFound<T>(error: ApiError): T[] | undefined {
  const bodySaysNotFound = String(error.providerCode) === "404" && messageIncludes(error.providerMessage, "not found");
  return error instanceof NotFoundError && bodySaysNotFound ? [] : undefined;
}
