import { timerDelay } from "../timer-delay.js";

/** How {@link KeyedBatcher} gathers calls. */
export interface BatchingOptions {
  /** Batches of one statement running at once (default 2); more calls wait and join the next batch. */
  maxInFlight?: number;
  /** Most calls in one batch (default 200). */
  maxSize?: number;
  /**
   * How long a batch may stay out (default 5,000 ms, the receivers' store-operation limit). A batch still out then
   * fails its calls and frees its place, so one statement stuck on a dead connection (a database failover leaves
   * pooled sockets hanging until TCP gives up, minutes later) or on a locked row cannot hold every later call
   * behind it. What it answers late goes to the batcher's `lateRow` (a claim applied late must be given back).
   */
  timeoutMs?: number;
}

/** The error each call of a batch that stayed out longer than `timeoutMs` fails with. */
export class BatchTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`The batched statement did not come back within ${timeoutMs} ms`);
    this.name = "BatchTimeoutError";
  }
}

interface Entry<Input, Row> {
  readonly input: Input;
  resolve(row: Row | undefined): void;
  reject(error: unknown): void;
}

/**
 * Gathers concurrent calls of one statement into one query. A call runs at once while fewer than `maxInFlight`
 * batches are out; otherwise it waits for one to come back and goes with everything that queued meanwhile. So a
 * lone call costs no extra latency, and under load one round trip (and one statement in the database) serves
 * many calls: the per-statement cost of a driver and of PostgreSQL dominates a small idempotency statement.
 *
 * A batch never holds one key twice (`INSERT ... ON CONFLICT DO UPDATE` cannot touch a row twice in one statement):
 * a second call for a key already in the batch waits for the next one, so it sees the first call's result. A
 * failing batch fails each of its calls with the same error.
 *
 * @example
 * const claims = new KeyedBatcher(async (calls) => rowsByKey(await db.query(CLAIM_MANY, [JSON.stringify(calls)])));
 * const row = await claims.submit({ key: "qris:payment.success:42", owner: "a1" });
 */
export class KeyedBatcher<Input extends { readonly key: string }, Row> {
  #queue: Entry<Input, Row>[] = [];
  #inFlight = 0;
  readonly #maxInFlight: number;
  readonly #maxSize: number;
  readonly #timeoutMs: number;

  /**
   * @param run runs one batch; resolves to the result rows by key (a key without a row gets `undefined`).
   * @param lateRow gets each row of a batch that answered after its calls already failed with
   *   `BatchTimeoutError` (internal): the statement did take effect, and its caller was told it did not.
   */
  constructor(
    private readonly run: (inputs: Input[]) => PromiseLike<ReadonlyMap<string, Row>>,
    options: BatchingOptions = {},
    private readonly lateRow?: (input: Input, row: Row) => void,
  ) {
    this.#maxInFlight = positiveInteger(options.maxInFlight ?? 2, "maxInFlight");
    this.#maxSize = positiveInteger(options.maxSize ?? 200, "maxSize");
    this.#timeoutMs = timerDelay(positiveInteger(options.timeoutMs ?? 5_000, "timeoutMs"));
  }

  /** Runs `input` in the next batch; resolves to its row. */
  submit(input: Input): Promise<Row | undefined> {
    return new Promise<Row | undefined>((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      this.#flush();
    });
  }

  #flush(): void {
    while (this.#inFlight < this.#maxInFlight && this.#queue.length > 0) {
      const batch = this.#takeBatch();
      this.#inFlight += 1;
      let outcome: PromiseLike<ReadonlyMap<string, Row>>;
      try {
        outcome = this.run(batch.map((entry) => entry.input));
      } catch (error) {
        outcome = Promise.reject(error);
      }
      let done = false;
      const settle = (answer: () => void) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        answer();
        this.#inFlight -= 1;
        this.#flush();
      };
      const timer = setTimeout(() => {
        const error = new BatchTimeoutError(this.#timeoutMs);
        settle(() => {
          for (const entry of batch) entry.reject(error);
        });
      }, this.#timeoutMs);
      Promise.resolve(outcome).then(
        (rows) => {
          if (done) return this.#late(batch, rows);
          settle(() => {
            for (const entry of batch) entry.resolve(rows.get(entry.input.key));
          });
        },
        (error: unknown) =>
          settle(() => {
            for (const entry of batch) entry.reject(error);
          }),
      );
    }
  }

  #late(batch: Entry<Input, Row>[], rows: ReadonlyMap<string, Row>): void {
    if (this.lateRow === undefined) return;
    for (const { input } of batch) {
      const row = rows.get(input.key);
      if (row === undefined) continue;
      try {
        this.lateRow(input, row);
      } catch {
        // The late handler is best effort: the lease still bounds what it could not undo.
      }
    }
  }

  // The oldest calls, one per key, up to maxSize; the rest stay queued in their order.
  #takeBatch(): Entry<Input, Row>[] {
    if (this.#queue.length === 1) return this.#queue.splice(0, 1);
    const batch: Entry<Input, Row>[] = [];
    const keys = new Set<string>();
    const rest: Entry<Input, Row>[] = [];
    for (const entry of this.#queue) {
      if (batch.length < this.#maxSize && !keys.has(entry.input.key)) {
        keys.add(entry.input.key);
        batch.push(entry);
      } else {
        rest.push(entry);
      }
    }
    this.#queue = rest;
    return batch;
  }
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`batching.${name} must be a positive integer`);
  return value;
}
