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

// Random bytes drawn from the platform's CSPRNG a few kilobytes at a time: one call per id would cost a test suite
// that makes a fake per test a measurable share of its time (bench/fake-lifecycle).
let pool = new Uint8Array(0);
let poolAt = 0;

function randomByte(): number {
  if (poolAt >= pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(4096));
    poolAt = 0;
  }
  return pool[poolAt++] as number;
}

/** `count` random decimal digits (not from the seed: another process must not repeat them). */
function randomDigits(count: number): string {
  let out = "";
  while (out.length < count) {
    const byte = randomByte();
    if (byte < 250) out += String(byte % 10); // 250 = 25 × 10: every digit equally likely
  }
  return out;
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/**
 * A version-7 UUID (RFC 9562): the serial's milliseconds in the first 48 bits and its sub-millisecond count in the
 * 12 bits after the version, so ids sort in the order they were made; 62 random bits keep two processes apart.
 */
function uuidV7(serial: number): string {
  const bytes = new Uint8Array(16);
  for (let i = 8; i < 16; i++) bytes[i] = randomByte();
  const ms = Math.floor(serial / 1000);
  const sub = serial % 1000;
  // 48-bit milliseconds, big-endian (split: bitwise operators work on 32 bits).
  const high = Math.floor(ms / 2 ** 32);
  const low = ms >>> 0;
  bytes[0] = (high >>> 8) & 0xff;
  bytes[1] = high & 0xff;
  bytes[2] = (low >>> 24) & 0xff;
  bytes[3] = (low >>> 16) & 0xff;
  bytes[4] = (low >>> 8) & 0xff;
  bytes[5] = low & 0xff;
  bytes[6] = 0x70 | (sub >>> 8);
  bytes[7] = sub & 0xff;
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  let text = "";
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text += "-";
    text += HEX[bytes[i] ?? 0];
  }
  return text;
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
