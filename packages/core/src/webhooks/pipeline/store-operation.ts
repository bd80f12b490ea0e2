import { IdempotencyStoreUnavailableError } from "../../idempotency/types.js";
import { raceTimer } from "../../timer-delay.js";
import { adopt, type MaybeAsync } from "./thenable.js";

/**
 * Calls one idempotency-store operation under its own time limit. A store answering synchronously (the memory
 * store) stays synchronous and pays for no timer; a store answering with any thenable is adopted and raced
 * against `timeoutMs`, so a store that hangs (a frozen Redis, a client queueing commands while disconnected)
 * fails the operation instead of holding the delivery. A throw, a rejection and a timeout all reject.
 */
export function storeOperation<T>(
  operation: () => T | PromiseLike<T>,
  timeoutMs: number,
  name: "claim" | "complete" | "release" | "begin" | "commit" | "rollback",
  lateResult?: (value: T) => unknown,
): MaybeAsync<T> {
  return timeLimited(
    operation,
    timeoutMs,
    () => new IdempotencyStoreUnavailableError(`The idempotency store's ${name} did not answer in ${timeoutMs} ms`),
    lateResult,
  );
}

/**
 * Like {@link storeOperation}, for any outside service (the inbox queue): `timedOut` makes the error. A value that
 * arrives after the time limit goes to `lateResult`, for what must not be left open (a transaction a late `begin`
 * opened holds a pooled connection until someone ends it).
 */
export function timeLimited<T>(
  operation: () => T | PromiseLike<T>,
  timeoutMs: number,
  timedOut: () => Error,
  lateResult?: (value: T) => unknown,
): MaybeAsync<T> {
  let result: MaybeAsync<T>;
  try {
    result = adopt(operation());
  } catch (error) {
    return Promise.reject(error);
  }
  if (!(result instanceof Promise)) return result;
  const pending = result;
  return raceTimer(pending, timeoutMs, () => {
    if (lateResult !== undefined) pending.then(lateResult, () => {});
    throw timedOut();
  });
}
