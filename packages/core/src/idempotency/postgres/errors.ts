import { IdempotencyStoreUnavailableError } from "../types.js";

/** A failed operation as the store's error (the database's error as its cause); one already wrapped stays as it is. */
export function unavailable(operation: string, error: unknown): IdempotencyStoreUnavailableError {
  if (error instanceof IdempotencyStoreUnavailableError) return error;
  return new IdempotencyStoreUnavailableError(`PostgreSQL ${operation} failed`, { cause: error });
}
