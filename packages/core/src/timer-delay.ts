/** The longest delay a timer can wait: 2^31 - 1 ms, about 24.8 days. A longer one fires at once, with a warning. */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/** `ms` as a timer can wait it: a delay beyond the longest one becomes the longest one, never an immediate firing. */
export function timerDelay(ms: number): number {
  return Math.min(ms, MAX_TIMER_DELAY_MS);
}

/**
 * Settles with `pending`, unless `ms` pass first: then with what `atTimeout` returns, or rejected with what it
 * throws. One promise and one timer, cleared as soon as `pending` settles; `pending` itself goes on either way.
 */
export function raceTimer<T, U>(pending: Promise<T>, ms: number, atTimeout: () => U): Promise<T | U> {
  return settleWithin<T, T | U>(pending, ms, same, rethrow, atTimeout);
}

/**
 * {@link raceTimer} with the answers built in: settles to what `fulfilled(value)` or `rejected(error)` returns once
 * `pending` settles within `ms`, or to what `atTimeout()` returns when `ms` pass first; only the first of the three
 * runs, and a throw rejects. One promise, one timer and no reaction on a second promise: the receiver runs this for
 * every delivery whose handlers return a promise (bench/adapters, bytes allocated per delivery).
 */
export function settleWithin<T, R>(
  pending: Promise<T>,
  ms: number,
  fulfilled: (value: T) => R | PromiseLike<R>,
  rejected: (error: unknown) => R | PromiseLike<R>,
  atTimeout: () => R | PromiseLike<R>,
): Promise<R> {
  return new Promise<R>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const answer = <V>(make: (input: V) => R | PromiseLike<R>, input?: V) => {
      // Only the first answer counts (timer ids are never 0).
      if (!timer) return;
      clearTimeout(timer);
      timer = undefined;
      try {
        resolve(make(input as V));
      } catch (error) {
        reject(error);
      }
    };
    timer = setTimeout(() => answer(atTimeout), timerDelay(ms));
    pending.then(
      (value) => answer(fulfilled, value),
      (error: unknown) => answer(rejected, error),
    );
  });
}

const same = <T>(value: T): T => value;
const rethrow = (error: unknown): never => {
  throw error;
};
