// Thenables of every kind a host app's code hands the receiver: the shapes behind issue 15's lost payments.
import { runInNewContext } from "node:vm";

/** A lazy thenable like a Mongoose Query or a knex builder: `work` starts only when `then` is called. */
export function lazyThenable<T>(work: () => Promise<T>) {
  const calls = { then: 0, started: false };
  const thenable = {
    then(onFulfilled: (value: T) => unknown, onRejected: (reason: unknown) => unknown) {
      calls.then++;
      calls.started = true;
      return work().then(onFulfilled, onRejected);
    },
  };
  return { thenable: thenable as unknown as PromiseLike<T>, calls };
}

/** An eager promise that is not a native Promise (Bluebird-style): settles after `ms`. */
export function eagerForeignPromise<T>(ms: number, outcome: { value?: T; error?: unknown }): PromiseLike<T> {
  let settled: { ok: boolean; value: unknown } | undefined;
  const waiting: [(value: unknown) => unknown, (reason: unknown) => unknown][] = [];
  setTimeout(() => {
    settled = "error" in outcome ? { ok: false, value: outcome.error } : { ok: true, value: outcome.value };
    for (const [onFulfilled, onRejected] of waiting.splice(0)) (settled.ok ? onFulfilled : onRejected)(settled.value);
  }, ms);
  const foreign = {
    then(onFulfilled: (value: unknown) => unknown, onRejected: (reason: unknown) => unknown) {
      if (settled === undefined) waiting.push([onFulfilled, onRejected]);
      else queueMicrotask(() => (settled?.ok ? onFulfilled : onRejected)(settled?.value));
      return undefined;
    },
  };
  return foreign as unknown as PromiseLike<T>;
}

/** A native Promise of another realm (as under Jest or `vm`), settling after `ms` with `value` or `error`. */
export function otherRealmPromise<T>(ms: number, outcome: { value?: T; error?: string }): Promise<T> {
  const promise = runInNewContext(
    "new Promise((resolve, reject) => wait(() => failure === undefined ? resolve(value) : reject(new Error(failure)), ms))",
    { wait: setTimeout, ms, value: outcome.value, failure: outcome.error },
  ) as Promise<T>;
  if (promise instanceof Promise) throw new Error("expected a promise of another realm");
  return promise;
}
