// Every value a user's code hands the pipeline (a handler's result, a verifier's verdict, a store's answer) goes
// through `adopt`. `instanceof Promise` is not enough: a Mongoose query or a knex builder is a lazy thenable that
// does its work only once `then` is called, Bluebird promises are eager but not native, and under Jest or `vm` a
// native promise comes from another realm. Missing any of them means answering 200 before the work ran.

/** A value, or a native promise of it once user code returned a thenable. */
export type MaybeAsync<T> = T | Promise<T>;

type ThenFunction = (onFulfilled: (value: unknown) => void, onRejected: (reason: unknown) => void) => unknown;

/**
 * Adopts `value` exactly as `await` would, without leaving the synchronous path for plain values: a native promise
 * of this realm is returned as it is; any other object or function with a callable `then` has `then` read once and
 * called once, and the returned native promise settles with it (a lazy thenable therefore starts its work here);
 * anything else is returned unchanged.
 */
export function adopt<T>(value: T | PromiseLike<T>): MaybeAsync<T> {
  if (value instanceof Promise) return value;
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return value as T;
  let then: unknown;
  try {
    then = (value as { then?: unknown }).then;
  } catch (error) {
    return Promise.reject(error);
  }
  if (typeof then !== "function") return value as T;
  // A throwing `then` rejects the promise, as it would under `await`.
  return new Promise<T>((resolve, reject) => {
    (then as ThenFunction).call(value, resolve as (value: unknown) => void, reject);
  });
}
