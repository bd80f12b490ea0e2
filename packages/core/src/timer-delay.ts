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
  return new Promise<T | U>((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        resolve(atTimeout());
      } catch (error) {
        reject(error);
      }
    }, timerDelay(ms));
    pending.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
