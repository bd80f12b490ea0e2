/** Thrown (and caught by the quoter) when a store did not answer within its time limit. */
export class StoreTimeout extends Error {}

interface Watch {
  due: number;
  expire(): void;
}

/**
 * Time limits for many short operations with one timer instead of one each: a Redis hit takes tens of microseconds,
 * and arming and clearing a timer per read cost a good part of that. The timer runs only while operations are
 * pending and looks every half limit, so an operation is given up between one and one and a half limits late.
 *
 * @example
 * const deadlines = new Deadlines(100);
 * const entries = await deadlines.race(store.get(key, couriers)); // rejects with StoreTimeout after 100-150 ms
 */
export class Deadlines {
  readonly #limitMs: number;
  readonly #pending = new Set<Watch>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(limitMs: number) {
    this.#limitMs = limitMs;
  }

  /** Settles as `operation` does, or rejects with {@link StoreTimeout} once it is past the limit. */
  race<T>(operation: PromiseLike<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const watch: Watch = { due: performance.now() + this.#limitMs, expire: () => reject(new StoreTimeout()) };
      this.#pending.add(watch);
      this.#arm();
      operation.then(
        (value) => {
          this.#pending.delete(watch);
          resolve(value);
        },
        (error: unknown) => {
          this.#pending.delete(watch);
          reject(error);
        },
      );
    });
  }

  #arm(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => this.#sweep(), Math.max(1, this.#limitMs / 2));
    // A pending read must not keep a process alive on its own (Node; other runtimes have no unref).
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #sweep(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (const watch of this.#pending) {
      if (watch.due > now) continue;
      this.#pending.delete(watch);
      watch.expire();
    }
    if (this.#pending.size > 0) this.#arm();
  }
}
