import { DeliveryJournalOverflowError, DeliveryJournalWriteError } from "./errors.js";

/** How a journal gathers `record()` calls into batches (each batch: one multi-row write). */
export interface JournalBatchingOptions {
  /** How long an entry may wait for others before its batch is written (default 50 ms). */
  readonly flushIntervalMs?: number;
  /** Entries per batch; a full batch is written at once (default 200). */
  readonly maxBatch?: number;
  /**
   * Entries held while the database is slow or away (default 10,000). Past it the oldest are dropped, their
   * `record()` promises reject and `onError` hears of it ({@link DeliveryJournalOverflowError}).
   */
  readonly maxBuffered?: number;
}

interface PendingCall<T> {
  readonly items: readonly T[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Write-behind buffer of a journal: calls wait at most `flushIntervalMs` (or until `maxBatch` entries wait), then go
 * out as one write; one write is out at a time, so a slow database sees batches grow, not connections pile up.
 * A call's entries always travel in one batch, and its promise settles with that batch.
 */
export class WriteBehind<T> {
  readonly #write: (items: T[]) => Promise<void>;
  readonly #intervalMs: number;
  readonly #maxBatch: number;
  readonly #maxBuffered: number;
  readonly #onError: (error: unknown) => void;
  readonly #queue: PendingCall<T>[] = [];
  #buffered = 0;
  #dropped = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> | undefined;
  #closed = false;

  constructor(
    write: (items: T[]) => Promise<void>,
    options: JournalBatchingOptions,
    onError: (error: unknown) => void,
  ) {
    this.#write = write;
    this.#intervalMs = positive(options.flushIntervalMs, 50, "flushIntervalMs");
    this.#maxBatch = positive(options.maxBatch, 200, "maxBatch");
    this.#maxBuffered = Math.max(this.#maxBatch, positive(options.maxBuffered, 10_000, "maxBuffered"));
    this.#onError = onError;
  }

  /** Entries dropped since the buffer was built because it was full. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Queues `items`; resolves once their batch is written. */
  add(items: readonly T[]): Promise<void> {
    if (this.#closed) return Promise.reject(new DeliveryJournalWriteError("The delivery journal is closed"));
    if (items.length === 0) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => {
      this.#queue.push({ items, resolve, reject });
    });
    this.#buffered += items.length;
    this.#dropOverflow();
    this.#schedule();
    return done;
  }

  /** Writes everything queued (also what arrives meanwhile) and stops the timer; later calls reject. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }

  /** Writes everything queued now, batch after batch. */
  async flush(): Promise<void> {
    this.#clearTimer();
    // Bounded: each round writes at least one call, and a closed buffer takes no new ones.
    for (let round = 0; round < 100_000 && (this.#writing !== undefined || this.#queue.length > 0); round++) {
      if (this.#writing !== undefined) await this.#writing;
      else await this.#writeNext();
    }
  }

  #dropOverflow(): void {
    let dropped = 0;
    // The newest call stays, even alone above the bound: it is the one the caller waits for.
    while (this.#buffered > this.#maxBuffered && this.#queue.length > 1) {
      const oldest = this.#queue.shift() as PendingCall<T>;
      this.#buffered -= oldest.items.length;
      dropped += oldest.items.length;
      oldest.reject(new DeliveryJournalOverflowError(oldest.items.length, this.#dropped + dropped));
    }
    if (dropped === 0) return;
    this.#dropped += dropped;
    this.#onError(new DeliveryJournalOverflowError(dropped, this.#dropped));
  }

  #schedule(): void {
    if (this.#writing !== undefined) return; // the write in flight schedules the next when it ends
    if (this.#buffered >= this.#maxBatch) {
      this.#clearTimer();
      void this.#writeNext();
    } else if (this.#timer === undefined && this.#queue.length > 0) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        void this.#writeNext();
      }, this.#intervalMs);
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #writeNext(): Promise<void> {
    if (this.#writing !== undefined) return this.#writing;
    const batch: PendingCall<T>[] = [];
    let count = 0;
    while (this.#queue.length > 0) {
      const next = this.#queue[0] as PendingCall<T>;
      if (batch.length > 0 && count + next.items.length > this.#maxBatch) break;
      this.#queue.shift();
      batch.push(next);
      count += next.items.length;
    }
    this.#buffered -= count;
    if (batch.length === 0) return Promise.resolve();
    const items = batch.flatMap((call) => call.items);
    const writing = this.#write(items)
      .then(
        () => {
          for (const call of batch) call.resolve();
        },
        (error: unknown) => {
          for (const call of batch) call.reject(error);
        },
      )
      .finally(() => {
        this.#writing = undefined;
        if (!this.#closed) this.#schedule();
      });
    this.#writing = writing;
    return writing;
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`journal batching: ${name} must be a positive number`);
  return Math.floor(value);
}
