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
 * runs, and a throw rejects. One promise, and a timer only for a `pending` still unsettled once the current turn of
 * the event loop is over (see armSoon): the receiver runs this for every delivery whose handlers return a promise,
 * and most of them have settled by then (bench/adapters, bytes allocated per delivery and CPU per request).
 */
export function settleWithin<T, R>(
  pending: Promise<T>,
  ms: number,
  fulfilled: (value: T) => R | PromiseLike<R>,
  rejected: (error: unknown) => R | PromiseLike<R>,
  atTimeout: () => R | PromiseLike<R>,
): Promise<R> {
  return new Promise<R>((resolve, reject) => {
    const startedAt = performance.now();
    // 0 while no timer is armed yet; undefined once answered (timer ids are never 0).
    let timer: ReturnType<typeof setTimeout> | 0 | undefined = 0;
    const answer = <V>(make: (input: V) => R | PromiseLike<R>, input?: V) => {
      // Only the first answer counts.
      if (timer === undefined) return;
      clearTimeout(timer);
      timer = undefined;
      try {
        resolve(make(input as V));
      } catch (error) {
        reject(error);
      }
    };
    armSoon(() => {
      // Still running: the rest of `ms`, counted from the start.
      if (timer === 0) timer = setTimeout(answer, timerDelay(ms - (performance.now() - startedAt)), atTimeout);
    });
    pending.then(
      (value) => answer(fulfilled, value),
      (error: unknown) => answer(rejected, error),
    );
  });
}

// Time limits waiting for the end of the current turn of the event loop. A timer set and cleared within one turn, as
// a delivery whose handlers end at once has it, cost about 3 % of the Fastify webhook route's CPU (Node creates and
// drops its list of timers of that length each time); one callback per turn arms the limits still running instead.
let unarmed: (() => void)[] | undefined;

function armSoon(arm: () => void): void {
  if (unarmed === undefined) {
    unarmed = [];
    // setImmediate runs right after the turn's I/O callbacks; runtimes without it take the next timer turn.
    ((globalThis as unknown as { setImmediate?: (run: () => void) => unknown }).setImmediate ?? setTimeout)(() => {
      const arms = unarmed as (() => void)[];
      unarmed = undefined;
      for (const armOne of arms) armOne();
    });
  }
  // A turn that starts a great many (a batch applied without yielding) arms the rest at once instead of keeping them.
  if (unarmed.length > 1023) arm();
  else unarmed.push(arm);
}

const same = <T>(value: T): T => value;
const rethrow = (error: unknown): never => {
  throw error;
};
