/**
 * A small seeded pseudo-random generator (sfc32 seeded through cyrb128), so that fixtures and the fake provider
 * produce the same ids, amounts and codes for the same seed on every run and every platform.
 *
 * @example
 * const random = new SeededRandom("checkout-test");
 * random.int(1, 999); // always the same first value for this seed
 * random.uuid();      // a well-formed v4 UUID derived from the seed
 */
export class SeededRandom {
  #a: number;
  #b: number;
  #c: number;
  #d: number;
  readonly #start: readonly [number, number, number, number];

  constructor(seed: string | number = 1) {
    [this.#a, this.#b, this.#c, this.#d] = cyrb128(String(seed));
    // The first outputs of sfc32 are weakly mixed; discard a few.
    for (let i = 0; i < 12; i++) this.next();
    this.#start = [this.#a, this.#b, this.#c, this.#d];
  }

  /** Starts the sequence over: the next values are those a new generator with the same seed gives. */
  reset(): void {
    [this.#a, this.#b, this.#c, this.#d] = this.#start;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#a |= 0;
    this.#b |= 0;
    this.#c |= 0;
    this.#d |= 0;
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new RangeError("pick() needs a non-empty list");
    return item;
  }

  /** `length` decimal digits as a string (leading zeros kept). */
  digits(length: number): string {
    let out = "";
    for (let i = 0; i < length; i++) out += String(this.int(0, 9));
    return out;
  }

  /** `length` upper-case letters and digits. */
  code(length: number): string {
    const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let out = "";
    for (let i = 0; i < length; i++) out += alphabet[this.int(0, alphabet.length - 1)];
    return out;
  }

  /** A version-4 UUID whose bits come from this generator. */
  uuid(): string {
    let text = "";
    for (let i = 0; i < 16; i++) {
      let byte = this.int(0, 255);
      if (i === 6) byte = (byte & 0x0f) | 0x40; // version 4
      if (i === 8) byte = (byte & 0x3f) | 0x80; // RFC 4122 variant
      if (i === 4 || i === 6 || i === 8 || i === 10) text += "-";
      text += HEX[byte];
    }
    return text;
  }
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

// 128-bit string hash used only to spread a seed over sfc32's four words.
function cyrb128(input: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < input.length; i++) {
    const k = input.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}
