// Retrying a call to the database until it answers: a worker holding events must settle each of them by what
// happened, whatever the database went through meanwhile (a crash, a failover, a restart).

/** Bounded exponential backoff: `firstMs` after the first failure, doubling up to `maxMs`. */
export interface Backoff {
  readonly firstMs: number;
  readonly maxMs: number;
}

/** 100 ms doubling to 5 s: a short blip costs a fraction of a second, a long outage one try every 5 s at most. */
export const DATABASE_BACKOFF: Backoff = { firstMs: 100, maxMs: 5_000 };

/** The pause after `failures` failed tries (1 or more): between half and all of the exponential delay (jitter). */
export function backoffDelay(backoff: Backoff, failures: number, random: () => number = Math.random): number {
  const ceiling = Math.min(backoff.maxMs, backoff.firstMs * 2 ** Math.min(Math.max(failures - 1, 0), 30));
  return Math.round(ceiling * (0.5 + 0.5 * random()));
}

/** Waits `ms`, or less if `signal` aborts first. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Thrown for a try that got no answer within its time limit. */
export class DatabaseCallTimeoutError extends Error {
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super(`${what}: no answer from the database within ${timeoutMs} ms`);
    this.name = "DatabaseCallTimeoutError";
  }
}

/** Options of {@link untilAnswered}. */
export interface UntilAnsweredOptions {
  /** What the call does, for the logs ("complete 12 events"). */
  readonly what: string;
  readonly backoff?: Backoff;
  /**
   * Each try's time limit: a connection that died without a word (a failover, a partition) can hang a query for
   * minutes; the try is then counted as failed and made again (every call given here may run twice).
   */
  readonly tryTimeoutMs?: number;
  /** Aborted when the caller gives up (a stop's time limit): the call then ends after its current try. */
  readonly signal?: AbortSignal;
  /** Told of each failed try (the logger's rate limit applies there). */
  readonly onFailure?: (error: unknown, what: string, failures: number) => void;
}

/**
 * Makes `call` until it succeeds, pausing with exponential backoff between tries, or until `signal` aborts (then
 * after one try at least). Returns whether it succeeded. Only for calls that may run more than once: every settle
 * statement is fenced by the job's retry count, and writing a dead letter twice adds nothing.
 */
export async function untilAnswered(call: () => Promise<unknown>, options: UntilAnsweredOptions): Promise<boolean> {
  const backoff = options.backoff ?? DATABASE_BACKOFF;
  const tryTimeoutMs = options.tryTimeoutMs ?? 10_000;
  for (let failures = 1; ; failures++) {
    try {
      await withTimeLimit(call(), tryTimeoutMs, options.what);
      return true;
    } catch (error) {
      options.onFailure?.(error, options.what, failures);
      if (options.signal?.aborted) return false;
      await pause(backoffDelay(backoff, failures), options.signal);
      if (options.signal?.aborted) return false;
    }
  }
}

/** `promise`, or a {@link DatabaseCallTimeoutError} after `ms`. */
export async function withTimeLimit<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseCallTimeoutError(what, ms)), ms);
  });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}
