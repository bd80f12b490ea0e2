// Entries built off the delivery path. The journal stage hands each answered delivery to its journal's queue as a
// DeferredEntry (references to what it saw, no entry yet); the queue builds the entries of everything handed over
// in the last DEFERRED_BATCH_MS and records them with one `record()` call, so a delivery pays for no entry, no
// redaction and no promise of its own. Built-in journals drain the queue before they flush, close or search, so
// what was answered is never left behind.
import type { DeliveryJournal, JournalEntry } from "./types.js";

/** One answered delivery whose entry is built when its batch is recorded. */
export interface DeferredEntry {
  /** Builds the entry; a promise only when its idempotency key must be hashed first. */
  build(): JournalEntry | Promise<JournalEntry>;
  /** The entry could not be built or recorded: told to the receiver (the delivery's answer is already sent). */
  notRecorded(error: unknown): void;
}

/**
 * How long an answered delivery waits for others before their entries are built and recorded. Each `record()` call
 * costs a batching journal a promise and a queue slot: a server answers a few deliveries per turn of its event loop,
 * and a batch per turn cost the Postgres and Redis routes 3-4 % of their requests per CPU-second (bench/README.md).
 */
export const DEFERRED_BATCH_MS = 20;
/** A batch is recorded at once past this many entries, without waiting for the timer. */
export const MAX_DEFERRED_BATCH = 64;
const DONE: Promise<void> = Promise.resolve();

/** A journal's queue of deliveries answered and not yet recorded. */
export class DeferredEntries {
  readonly #journal: DeliveryJournal;
  #pending: DeferredEntry[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #onTimer = () => {
    this.#timer = undefined;
    void this.drain();
  };

  constructor(journal: DeliveryJournal) {
    this.#journal = journal;
  }

  /** Queues one delivery: recorded within {@link DEFERRED_BATCH_MS} (or now, when the batch is full). */
  add(entry: DeferredEntry): void {
    const pending = this.#pending;
    pending.push(entry);
    if (pending.length >= MAX_DEFERRED_BATCH) void this.drain();
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(this.#onTimer, DEFERRED_BATCH_MS);
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  /**
   * Builds everything queued so far and hands it to one `record()` call. Resolves once `record()` was called (not
   * when it settles: a batching journal's own flush writes them); never rejects.
   */
  drain(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending;
    if (batch.length === 0) return DONE;
    this.#pending = [];
    const entries: JournalEntry[] = [];
    const owners: DeferredEntry[] = [];
    const hashing: Promise<void>[] = [];
    for (const owner of batch) {
      try {
        const built = owner.build();
        if (!(built instanceof Promise)) {
          entries.push(built);
          owners.push(owner);
          continue;
        }
        hashing.push(
          built.then(
            (entry) => {
              entries.push(entry);
              owners.push(owner);
            },
            (error: unknown) => owner.notRecorded(error),
          ),
        );
      } catch (error) {
        owner.notRecorded(error);
      }
    }
    if (hashing.length === 0) return this.#record(entries, owners);
    return Promise.all(hashing).then(() => this.#record(entries, owners));
  }

  #record(entries: JournalEntry[], owners: DeferredEntry[]): Promise<void> {
    if (entries.length === 0) return DONE;
    let recorded: Promise<void>;
    try {
      recorded = Promise.resolve(this.#journal.record(entries));
    } catch (error) {
      for (const owner of owners) owner.notRecorded(error);
      return DONE;
    }
    recorded.then(undefined, (error: unknown) => {
      for (const owner of owners) owner.notRecorded(error);
    });
    return DONE;
  }
}

// One queue per journal object, shared by every receiver that journals into it.
const queues = new WeakMap<DeliveryJournal, DeferredEntries>();

/** The queue of `journal` (the object a receiver was given), created on first use. */
export function deferredEntriesOf(journal: DeliveryJournal): DeferredEntries {
  let queue = queues.get(journal);
  if (queue === undefined) {
    queue = new DeferredEntries(journal);
    queues.set(journal, queue);
  }
  return queue;
}

/**
 * Records the entries receivers handed to `journal` and not yet recorded (a journal calls it before it flushes,
 * closes or searches). Resolves once they were handed to `record()`; never rejects.
 */
export function drainDeferredEntries(journal: DeliveryJournal): Promise<void> {
  return queues.get(journal)?.drain() ?? DONE;
}
