import { runInNewContext } from "node:vm";

// The kinds of "promise" real host apps hand the webhook receiver that are not native promises of its realm (issue
// 15 item 1): lazy thenables (a Mongoose Query, a knex builder), eager non-native promises (Bluebird), and native
// promises of another realm (`vm`, Jest's module registry). `await` adopts all of them; `instanceof Promise` none.

/** A lazy thenable whose `then` calls are counted. */
export interface LazyThenable<T> extends PromiseLike<T> {
  /** How many times `then` was called; `await` calls it exactly once. */
  readonly thenCalls: number;
}

/**
 * Like a Mongoose `Query` or a knex builder: `work` starts only when `then` is called (and again on every call),
 * so a thenable nobody calls `then` on never does its work.
 */
export function lazyThenable<T>(work: () => Promise<T>): LazyThenable<T> {
  let thenCalls = 0;
  return {
    get thenCalls() {
      return thenCalls;
    },
    then(onFulfilled, onRejected) {
      thenCalls++;
      return work().then(onFulfilled, onRejected);
    },
  };
}

type Reaction = () => void;

/**
 * A minimal eager promise that is not a native one (Bluebird-style): the executor runs at once, callbacks run on a
 * microtask once it settles. Unlike a native promise, a rejection nobody handles is silent, so a receiver that does
 * not adopt it loses the failure without a trace.
 */
export class EagerPromise<T> implements PromiseLike<T> {
  #state: "pending" | "fulfilled" | "rejected" = "pending";
  #value: unknown;
  #reactions: Reaction[] = [];

  constructor(executor: (resolve: (value: T) => void, reject: (reason: unknown) => void) => void) {
    const settle = (state: "fulfilled" | "rejected", value: unknown) => {
      if (this.#state !== "pending") return;
      this.#state = state;
      this.#value = value;
      for (const reaction of this.#reactions.splice(0)) reaction();
    };
    try {
      executor(
        (value) => settle("fulfilled", value),
        (reason) => settle("rejected", reason),
      );
    } catch (error) {
      settle("rejected", error);
    }
  }

  then<A = T, B = never>(
    onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): EagerPromise<A | B> {
    return new EagerPromise<A | B>((resolve, reject) => {
      const react = () =>
        queueMicrotask(() => {
          const fulfilled = this.#state === "fulfilled";
          const callback = fulfilled ? onFulfilled : onRejected;
          if (!callback) {
            if (fulfilled) resolve(this.#value as A);
            else reject(this.#value);
            return;
          }
          try {
            resolve((callback as (value: unknown) => A | B)(this.#value));
          } catch (error) {
            reject(error);
          }
        });
      if (this.#state === "pending") this.#reactions.push(react);
      else react();
    });
  }
}

/** `Promise` of a fresh `vm` context: its promises are native, but `instanceof Promise` is false for them here. */
export const ForeignPromise = runInNewContext("Promise") as PromiseConstructor;

/** A promise of another realm that fulfils with `value` after `ms` (running `onSettle` first). */
export function foreignResolveAfter<T>(ms: number, value: T, onSettle?: () => void): Promise<T> {
  return new ForeignPromise<T>((resolve) =>
    setTimeout(() => {
      onSettle?.();
      resolve(value);
    }, ms),
  );
}

/** A promise of another realm that rejects with `error` after `ms`. */
export function foreignRejectAfter(ms: number, error: unknown): Promise<never> {
  return new ForeignPromise<never>((_resolve, reject) => setTimeout(() => reject(error), ms));
}

/** An eager non-native promise that settles after `ms`: fulfils with `value`, or rejects when `error` is given. */
export function eagerAfter<T>(ms: number, outcome: { value: T } | { error: unknown }): EagerPromise<T> {
  return new EagerPromise<T>((resolve, reject) =>
    setTimeout(() => ("error" in outcome ? reject(outcome.error) : resolve(outcome.value)), ms),
  );
}

/** Resolves after `ms` (a native promise of this realm). */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Collects the process's `unhandledRejection` events while it is installed. Vitest reports them as errors of the
 * run; this lets a test say which delivery caused one.
 */
export class UnhandledRejections {
  readonly reasons: unknown[] = [];
  readonly #listener = (reason: unknown) => {
    this.reasons.push(reason);
  };

  /** Starts listening, forgetting what an earlier installation collected. */
  install(): void {
    this.reasons.length = 0;
    process.on("unhandledRejection", this.#listener);
  }

  uninstall(): void {
    process.off("unhandledRejection", this.#listener);
  }
}
