import type { z } from "zod";
import { RequestValidationError } from "../errors/validation.js";

/**
 * Validates a request input with a strict schema BEFORE any network call. Throws a {@link RequestValidationError}
 * listing every failing field (paths and messages only, never the values).
 *
 * @example
 * const input = parseRequestInput(createPaymentInputSchema, userInput, "createPayment");
 */
export function parseRequestInput<S extends z.ZodType>(schema: S, input: unknown, operation: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new RequestValidationError(
    result.error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message })),
    operation,
  );
}
