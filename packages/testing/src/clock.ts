/** Handle of a timer scheduled on a {@link Clock}. */
export type TimerId = number;

/**
 * The time source of the fake provider: expiries and webhook retries are timers on it.
 * {@link ManualClock} moves only when a test advances it; {@link RealClock} follows the wall clock (server mode).
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `callback` once `delayMs` have passed on this clock. */
  setTimer(callback: () => unknown, delayMs: number): TimerId;
  /** Cancels a timer that has not fired yet. */
  clearTimer(id: TimerId): void;
  /**
   * Moves the clock forward by `ms` and runs every timer that falls due, in due order, awaiting each one (timers
   * they schedule inside the window run too). On a {@link RealClock} this skips ahead of the wall clock.
   */
  advance(ms: number): Promise<void>;
}

interface PendingTimer {
  id: TimerId;
  due: number;
  callback: () => unknown;
}

/** Default start of a {@link ManualClock}: a fixed instant, so that timestamps in tests never change. */
export const DEFAULT_CLOCK_START = Date.UTC(2026, 0, 15, 3, 0, 0);

/**
 * A clock that only moves when told to. Timers fire inside {@link ManualClock.advance}.
 *
 * @example
 * const clock = new ManualClock(new Date("2026-01-15T03:00:00Z"));
 * clock.setTimer(() => console.log("fired"), 60_000);
 * await clock.advance(60_000); // logs "fired"
 */
export class ManualClock implements Clock {
  #start: number;
  #now: number;
  #nextId = 1;
  #timers: PendingTimer[] = [];

  constructor(start: Date | number = DEFAULT_CLOCK_START) {
    this.#start = typeof start === "number" ? start : start.getTime();
    this.#now = this.#start;
  }

  /** Drops every pending timer and moves the clock back to where it started. */
  reset(): void {
    this.#timers = [];
    this.#now = this.#start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(callback: () => unknown, delayMs: number): TimerId {
    const id = this.#nextId++;
    this.#timers.push({ id, due: this.#now + Math.max(0, delayMs), callback });
    return id;
  }

  clearTimer(id: TimerId): void {
    this.#timers = this.#timers.filter((timer) => timer.id !== id);
  }

  /** Number of timers not yet fired. */
  get pendingTimers(): number {
    return this.#timers.length;
  }

  async advance(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError("advance(ms) needs a finite, non-negative duration");
    const target = this.#now + ms;
    for (;;) {
      const next = this.#takeNextDue(target);
      if (!next) break;
      this.#now = Math.max(this.#now, next.due);
      await next.callback();
    }
    this.#now = target;
  }

  #takeNextDue(limit: number): PendingTimer | undefined {
    let best: PendingTimer | undefined;
    for (const timer of this.#timers) {
      if (timer.due <= limit && (!best || timer.due < best.due || (timer.due === best.due && timer.id < best.id))) {
        best = timer;
      }
    }
    if (best) this.#timers = this.#timers.filter((timer) => timer !== best);
    return best;
  }
}

/**
 * The wall clock, for the standalone server. `advance(ms)` shifts it ahead (and fires what falls due), so a
 * developer can still fast-forward an expiry without waiting 15 minutes.
 *
 * @example
 * const clock = new RealClock();
 * clock.setTimer(() => console.log("a second later"), 1000);
 */
export class RealClock implements Clock {
  #offset = 0;
  #nextId = 1;
  #timers = new Map<TimerId, { due: number; callback: () => unknown; handle: ReturnType<typeof setTimeout> }>();

  now(): number {
    return Date.now() + this.#offset;
  }

  /** Cancels every pending timer and undoes every `advance` (back to the wall clock). */
  reset(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer.handle);
    this.#timers.clear();
    this.#offset = 0;
  }

  setTimer(callback: () => unknown, delayMs: number): TimerId {
    const id = this.#nextId++;
    const due = this.now() + Math.max(0, delayMs);
    const handle = setTimeout(
      () => {
        this.#timers.delete(id);
        void callback();
      },
      Math.max(0, delayMs),
    );
    // A pending retry must not keep a test runner or CLI process alive on its own.
    handle.unref?.();
    this.#timers.set(id, { due, callback, handle });
    return id;
  }

  clearTimer(id: TimerId): void {
    const timer = this.#timers.get(id);
    if (timer) clearTimeout(timer.handle);
    this.#timers.delete(id);
  }

  async advance(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError("advance(ms) needs a finite, non-negative duration");
    this.#offset += ms;
    const due = [...this.#timers.entries()]
      .filter(([, timer]) => timer.due <= this.now())
      .sort(([, a], [, b]) => a.due - b.due);
    for (const [id, timer] of due) {
      clearTimeout(timer.handle);
      this.#timers.delete(id);
      await timer.callback();
    }
  }
}

/**
 * A view of a clock someone else owns that remembers the timers set through it, so the fake can cancel its own
 * timers on `reset()` without touching the owner's.
 */
export class TimerScope implements Clock {
  readonly #inner: Clock;
  #ids = new Set<TimerId>();

  constructor(inner: Clock) {
    this.#inner = inner;
  }

  now(): number {
    return this.#inner.now();
  }

  setTimer(callback: () => unknown, delayMs: number): TimerId {
    const id = this.#inner.setTimer(() => {
      this.#ids.delete(id);
      return callback();
    }, delayMs);
    this.#ids.add(id);
    return id;
  }

  clearTimer(id: TimerId): void {
    this.#ids.delete(id);
    this.#inner.clearTimer(id);
  }

  advance(ms: number): Promise<void> {
    return this.#inner.advance(ms);
  }

  /** Cancels every timer set through this scope. */
  clearAll(): void {
    for (const id of this.#ids) this.#inner.clearTimer(id);
    this.#ids.clear();
  }
}
