// The memory journal's storage: the newest `capacity` entries in columns (one array per field), entry number n
// (1, 2, …) at slot (n - 1) % capacity until a later one takes its slot. Recording an entry allocates nothing that
// lives on (its strings are the delivery's own): objects kept per entry would be copied by every young-generation
// collection and promoted, which cost deliveries more than recording them did. Entries are rebuilt when read.
import type { WebhookSource } from "../../webhooks/verifiers/types.js";
import type { JournalEntry, JournalOrigin, JournalOutcome, JournalReferences } from "../types.js";

/** An entry as read back from the ring: numbered in recording order (its id, once searched). */
export type KeptEntry = Omit<JournalEntry, "id"> & { readonly number: number };

const REFERENCES = ["qris_history_id", "payment_id", "order_id", "order_no", "cnote"] as const;
type ReferenceName = (typeof REFERENCES)[number];
// Number columns hold doubles only (NaN for absent), so they stay unboxed arrays.
const NONE = Number.NaN;

/** A fixed number of entries, oldest overwritten first. */
export class EntryRing {
  readonly #capacity: number;
  /** Entries recorded so far (the number of the newest). */
  #recorded = 0;
  // 0 marks a slot emptied by retention.
  readonly #number: number[] = [];
  readonly #at: number[] = [];
  readonly #httpStatus: number[] = [];
  readonly #attempt: number[] = [];
  readonly #handlerMs: number[] = [];
  readonly #source: WebhookSource[] = [];
  readonly #origin: JournalOrigin[] = [];
  readonly #outcome: JournalOutcome[] = [];
  readonly #instance: string[] = [];
  readonly #event: (string | undefined)[] = [];
  readonly #state: (string | undefined)[] = [];
  readonly #key: (string | undefined)[] = [];
  readonly #error: (string | undefined)[] = [];
  readonly #body: (string | undefined)[] = [];
  readonly #references: Record<ReferenceName, (string | undefined)[]> = {
    qris_history_id: [],
    payment_id: [],
    order_id: [],
    order_no: [],
    cnote: [],
  };

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** The number of the newest entry recorded (0 before any). */
  get recorded(): number {
    return this.#recorded;
  }

  /** Keeps `entry` (its fields, not the object: the caller's object may change later); returns its number. */
  push(entry: JournalEntry, body: string | undefined): number {
    const number = ++this.#recorded;
    const slot = (number - 1) % this.#capacity;
    set(this.#number, slot, number);
    set(this.#at, slot, entry.at);
    set(this.#httpStatus, slot, entry.httpStatus);
    set(this.#attempt, slot, entry.attempt ?? NONE);
    set(this.#handlerMs, slot, entry.handlerMs ?? NONE);
    set(this.#source, slot, entry.source);
    set(this.#origin, slot, entry.origin);
    set(this.#outcome, slot, entry.outcome);
    set(this.#instance, slot, entry.instance);
    set(this.#event, slot, entry.event);
    set(this.#state, slot, entry.state);
    set(this.#key, slot, entry.idempotencyKey);
    set(this.#error, slot, entry.error);
    set(this.#body, slot, body);
    const references = entry.references as Record<string, unknown> | undefined;
    for (const name of REFERENCES) {
      const value = references?.[name];
      set(this.#references[name], slot, typeof value === "string" ? value : undefined);
    }
    return number;
  }

  /** The entry numbered `number`, while it is kept. */
  get(number: number): KeptEntry | undefined {
    if (number < 1 || number > this.#recorded) return undefined;
    const slot = (number - 1) % this.#capacity;
    return this.#number[slot] === number ? this.#read(slot) : undefined;
  }

  /** Every kept entry, in no particular order. */
  *kept(): Generator<KeptEntry> {
    const numbers = this.#number;
    for (let slot = 0; slot < numbers.length; slot++) if (numbers[slot] !== 0) yield this.#read(slot);
  }

  /** Forgets the entries answered before `cutoff` (epoch ms); returns how many. */
  expire(cutoff: number): number {
    const numbers = this.#number;
    const at = this.#at;
    let expired = 0;
    for (let slot = 0; slot < numbers.length; slot++) {
      if (numbers[slot] === 0 || (at[slot] as number) >= cutoff) continue;
      numbers[slot] = 0;
      // The strings of an entry gone are not held any longer.
      for (const column of [this.#event, this.#state, this.#key, this.#error, this.#body]) column[slot] = undefined;
      for (const name of REFERENCES) this.#references[name][slot] = undefined;
      expired++;
    }
    return expired;
  }

  #read(slot: number): KeptEntry {
    const references: Record<string, string> = {};
    for (const name of REFERENCES) {
      const value = this.#references[name][slot];
      if (value !== undefined) references[name] = value;
    }
    const entry: Record<string, unknown> = {
      number: this.#number[slot],
      at: this.#at[slot],
      source: this.#source[slot],
      origin: this.#origin[slot],
      references: references as JournalReferences,
      httpStatus: this.#httpStatus[slot],
      outcome: this.#outcome[slot],
      instance: this.#instance[slot],
    };
    const optional = {
      event: this.#event[slot],
      state: this.#state[slot],
      idempotencyKey: this.#key[slot],
      attempt: this.#attempt[slot],
      handlerMs: this.#handlerMs[slot],
      error: this.#error[slot],
      body: this.#body[slot],
    };
    for (const [name, value] of Object.entries(optional)) {
      if (value !== undefined && !Number.isNaN(value)) entry[name] = value;
    }
    return entry as unknown as KeptEntry;
  }
}

function set<T>(column: T[], slot: number, value: T): void {
  if (slot === column.length) column.push(value);
  else column[slot] = value;
}
