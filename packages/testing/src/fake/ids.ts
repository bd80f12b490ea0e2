// The ids a shop stores or keys on (QR history ids, payment ids, virtual-account numbers, order numbers, waybills,
// delivery ids). An app's database and idempotency store outlive a test, a fake and a test run: an id the fake hands
// out twice turns a new payment into a "duplicate" the app answers 200 without running its handler. So by default
// every id is new for good; seeded ids, the same for every fake with that seed, are an explicit choice.
import type { SeededRandom } from "../random.js";

/**
 * How the fake makes ids. `"unique"` (default): never repeated within a process, across `reset()`, across fakes or
 * across test runs (time-ordered, from the wall clock, with random digits). `"seeded"`: drawn from the fake's seed,
 * the same for every fake with that seed and again after `reset()`, for snapshot tests.
 */
export type FakeIdMode = "unique" | "seeded";

/** Where the fake's stores take their ids. */
export interface IdSource {
  /** A QR code's `history_id`: a UUID, as the spec says. */
  historyId(): string;
  /** The flat QR body's `transaction_id` of a code. */
  transactionId(historyId: string): string;
  /** The reference a code's QRIS string carries (8 characters), so no two codes share a string. */
  qrReference(historyId: string): string;
  /** The number part of `KPAY-<number>/KM/<year>`. */
  paymentNumber(): string;
  /** The 12 digits after a virtual account's `8808` prefix. */
  vaDigits(): string;
  /** The digits of an order number (`KOM<digits>`). */
  orderDigits(): string;
  /** The digits of a waybill after the courier's two letters. */
  waybillDigits(): string;
  /** The id shared by every attempt of one webhook delivery. */
  deliveryId(): string;
  /** What `provider.reset()` does to the ids: start over when seeded, nothing when unique. */
  reset(): void;
}

/** The id source of `mode`; seeded ids come from `random`, which `reset()` rewinds with the rest of the fake. */
export function createIdSource(mode: FakeIdMode | undefined, random: SeededRandom): IdSource {
  if (mode === undefined || mode === "unique") return UNIQUE_IDS;
  if (mode === "seeded") return new SeededIds(random);
  throw new TypeError(`ids must be "unique" or "seeded", got ${JSON.stringify(mode)}`);
}

// The last serial handed out in this process: serials grow by at least one per id, and never lag the wall clock.
let lastSerial = 0;

/**
 * A strictly increasing number of this process that also grows from one run to the next: the wall clock in
 * microseconds-since-epoch units (16 digits until the year 2286), bumped by one when ids come faster than that.
 */
function nextSerial(): number {
  lastSerial = Math.max(lastSerial + 1, Date.now() * 1000);
  return lastSerial;
}

// Random parts come from Math.random: uniqueness needs draws that another process does not repeat (V8 seeds each
// isolate from the operating system's entropy), not secrecy, and a CSPRNG call per id would cost a suite that makes
// a fake per test a measurable share of its time (bench/fake-lifecycle).

/** `count` random decimal digits (not from the seed: another process must not repeat them). */
function randomDigits(count: number): string {
  let out = "";
  while (out.length < count) out += String(Math.floor(Math.random() * 1e6)).padStart(6, "0");
  return out.slice(0, count);
}

// Number#toString(16) takes V8's slow path for any number; a table of byte pairs is several times faster.
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** The low 32 bits of `value` as 8 lower-case hex characters. */
function hex32(value: number): string {
  return (
    (HEX[(value >>> 24) & 0xff] as string) + HEX[(value >>> 16) & 0xff] + HEX[(value >>> 8) & 0xff] + HEX[value & 0xff]
  );
}

/**
 * A version-7 UUID (RFC 9562): the serial's milliseconds in the first 48 bits and its sub-millisecond count in the
 * 12 bits after the version, so ids sort in the order they were made; 62 random bits keep two processes apart.
 */
function uuidV7(serial: number): string {
  const ms = Math.floor(serial / 1000);
  const high = hex32(Math.floor(ms / 2 ** 32)).slice(4); // the top 16 of the 48 bits
  const low = hex32(ms >>> 0);
  const count = hex32(serial % 1000).slice(5); // 0-999 fits 3 hex digits
  const a = Math.floor(Math.random() * 2 ** 32);
  const b = hex32(Math.floor(Math.random() * 2 ** 32));
  // The fourth group starts with the variant's two bits (10), then 14 random bits.
  const variant = hex32(((a >>> 16) & 0x3fff) | 0x8000).slice(4);
  return `${high}${low.slice(0, 4)}-${low.slice(4)}-7${count}-${variant}-${hex32(a).slice(4)}${b}`;
}

/** Serial and six random digits: 22 digits, in the order they were made. */
const uniqueNumber = () => `${nextSerial()}${randomDigits(6)}`;

const UNIQUE_IDS: IdSource = {
  historyId: () => uuidV7(nextSerial()),
  // The random tail of the UUID: the head is the time, which another process may share.
  transactionId: (historyId) => `TRX-${historyId.replace(/-/g, "").slice(-16).toUpperCase()}`,
  qrReference: (historyId) => historyId.slice(-8),
  paymentNumber: uniqueNumber,
  vaDigits: () => randomDigits(12),
  orderDigits: uniqueNumber,
  waybillDigits: uniqueNumber,
  deliveryId: () => `dlv_${uniqueNumber()}`,
  reset: () => {},
};

/** The fake's ids before unique ids were the default, drawn from the seed in the same order. */
class SeededIds implements IdSource {
  readonly #random: SeededRandom;
  #payments = 0;
  #deliveries = 0;

  constructor(random: SeededRandom) {
    this.#random = random;
  }

  historyId(): string {
    return this.#random.uuid();
  }

  transactionId(historyId: string): string {
    return `TRX-${historyId.replace(/-/g, "").slice(0, 16).toUpperCase()}`;
  }

  qrReference(historyId: string): string {
    return historyId.slice(0, 8);
  }

  paymentNumber(): string {
    this.#payments += 1;
    return `${1000 + this.#payments}${this.#random.digits(2)}`;
  }

  vaDigits(): string {
    return this.#random.digits(12);
  }

  orderDigits(): string {
    return this.#random.digits(10);
  }

  waybillDigits(): string {
    return this.#random.digits(10);
  }

  deliveryId(): string {
    this.#deliveries += 1;
    return `dlv_${String(this.#deliveries).padStart(6, "0")}`;
  }

  reset(): void {
    this.#payments = 0;
    this.#deliveries = 0;
  }
}
