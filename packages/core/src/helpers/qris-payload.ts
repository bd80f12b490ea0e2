import { crc16CcittFalse, formatCrc16 } from "./qris-crc.js";
import { QrisPayloadError } from "./qris-error.js";
import { parseQrisTlv, type QrisTag } from "./qris-tlv.js";

/** The CRC data object header (`63` id, `04` length) that closes every QRIS payload. */
const CRC_HEADER = "6304";
const HEX4 = /^[0-9A-Fa-f]{4}$/;

/** A parsed QRIS payload. */
export interface QrisPayload {
  /** The payload as given. */
  raw: string;
  /** Top-level data objects in order, the CRC object (id `63`) last. */
  tags: QrisTag[];
  /** The CRC the payload carries (4 hex digits, as written). */
  crc: string;
}

/** Options of {@link parseQrisPayload}. */
export interface ParseQrisPayloadOptions {
  /** Check the CRC and throw on mismatch (default `true`). */
  verifyCrc?: boolean;
}

/**
 * Computes the CRC of a QRIS payload: CRC-16/CCITT-FALSE over everything up to and including the `6304` header.
 *
 * @example
 * computeQrisCrc("000201010211...6304"); // e.g. "0A1F"
 */
export function computeQrisCrc(payloadThroughCrcHeader: string): string {
  return formatCrc16(crc16CcittFalse(payloadThroughCrcHeader));
}

/**
 * Parses an EMVCo merchant-presented QRIS string into its data objects, expanding templates (26–51, 62, 64),
 * and checks that it ends with the CRC object and (unless `verifyCrc: false`) that the CRC matches.
 * Lengths and positions count characters (QRIS payloads are ASCII in practice).
 *
 * @throws {QrisPayloadError} with the position and reason of the first problem.
 * @example
 * const qr = parseQrisPayload(qrisString);
 * findQrisTag(qr.tags, "59")?.value; // merchant name
 */
export function parseQrisPayload(payload: string, options: ParseQrisPayloadOptions = {}): QrisPayload {
  const tags = parseQrisTlv(payload, 0, true);
  const crcTag = tags.at(-1);
  const crcStart = payload.length - 8;
  if (crcTag === undefined || crcTag.id !== "63" || crcTag.length !== 4 || crcTag.position !== crcStart) {
    throw new QrisPayloadError(
      "missing_crc",
      Math.max(crcStart, 0),
      'the payload must end with the CRC object "6304" followed by 4 hex digits',
    );
  }
  const earlier = tags.slice(0, -1).find((tag) => tag.id === "63");
  if (earlier)
    throw new QrisPayloadError("duplicate_crc", earlier.position, "a CRC object appears before the last one");
  if (options.verifyCrc !== false) assertCrc(payload);
  return { raw: payload, tags, crc: crcTag.value };
}

function assertCrc(payload: string): void {
  const crcValueStart = payload.length - 4;
  const expected = computeQrisCrc(payload.slice(0, crcValueStart));
  const actual = payload.slice(crcValueStart);
  if (!HEX4.test(actual) || actual.toUpperCase() !== expected) {
    throw new QrisPayloadError("crc_mismatch", crcValueStart, `CRC is "${actual}", expected "${expected}"`, {
      expected,
      actual,
    });
  }
}

/**
 * Whether the payload ends with `6304` + a CRC that matches its content. Never throws.
 * Lower-case hex is accepted when reading; {@link withQrisCrc} always writes upper case.
 *
 * @example
 * verifyQrisCrc(qrisString); // true
 */
export function verifyQrisCrc(payload: string): boolean {
  if (payload.length < 8 || payload.slice(-8, -4) !== CRC_HEADER) return false;
  const actual = payload.slice(-4);
  return HEX4.test(actual) && actual.toUpperCase() === computeQrisCrc(payload.slice(0, -4));
}

/**
 * Closes a payload with its CRC object: appends `6304` and the CRC. The input must be a well-formed run of data
 * objects without a CRC object (a payload that already has one is refused instead of getting a second).
 *
 * @throws {QrisPayloadError} when the input is malformed or already contains tag `63`.
 * @example
 * withQrisCrc("000201010211" + "5303360" + "5802ID"); // "...6304XXXX"
 */
export function withQrisCrc(payloadWithoutCrc: string): string {
  const existing = parseQrisTlv(payloadWithoutCrc, 0, true).find((tag) => tag.id === "63");
  if (existing) {
    throw new QrisPayloadError("duplicate_crc", existing.position, "the payload already has a CRC object (tag 63)");
  }
  const head = `${payloadWithoutCrc}${CRC_HEADER}`;
  return `${head}${computeQrisCrc(head)}`;
}

/**
 * Finds a data object by id, or a sub-object of a template by template id then sub-id.
 *
 * @example
 * findQrisTag(qr.tags, "62", "01")?.value; // bill number from the additional data template
 */
export function findQrisTag(tags: readonly QrisTag[], id: string, subId?: string): QrisTag | undefined {
  const tag = tags.find((candidate) => candidate.id === id);
  if (subId === undefined) return tag;
  return tag?.children?.find((child) => child.id === subId);
}

/**
 * Reads the transaction amount (tag 54) as integer rupiah, or `null` when the QR carries none (a static QR where the
 * payer types the amount). QRIS amounts in rupiah are whole; a decimal form with a zero fraction (`"15000.00"`) is
 * accepted, while a real fraction (`"15000.50"`) is refused rather than rounded, so money is never changed silently.
 * A string is parsed first (CRC checked).
 *
 * @throws {QrisPayloadError} `invalid_amount` when tag 54 is not a decimal number, `amount_not_whole` on a fraction,
 * or any parse error of a string payload.
 * @example
 * readQrisAmount("...540515000...6304ABCD"); // 15000
 */
export function readQrisAmount(payload: string | QrisPayload): number | null {
  const parsed = typeof payload === "string" ? parseQrisPayload(payload) : payload;
  const tag = findQrisTag(parsed.tags, "54");
  if (tag === undefined) return null;
  const match = /^(\d+)(?:\.(\d+))?$/.exec(tag.value);
  if (!match) {
    throw new QrisPayloadError("invalid_amount", tag.position + 4, `amount "${tag.value}" is not a decimal number`);
  }
  const [, whole = "", fraction = ""] = match;
  if (/[1-9]/.test(fraction)) {
    throw new QrisPayloadError("amount_not_whole", tag.position + 4, `amount "${tag.value}" is not whole rupiah`);
  }
  const amount = Number(whole);
  if (!Number.isSafeInteger(amount)) {
    throw new QrisPayloadError("invalid_amount", tag.position + 4, `amount "${tag.value}" is too large`);
  }
  return amount;
}
