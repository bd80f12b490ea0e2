// Builds EMVCo merchant-presented QR payloads the way QRIS codes are laid out, so that fixture and fake QR strings
// parse, carry the charged amount in tag 54 and pass the CRC check of core's QRIS tools (which also close them).
import { withQrisCrc } from "@kirimbayar/core";

const encoder = new TextEncoder();

function tlv(tag: string, value: string): string {
  const length = encoder.encode(value).length;
  if (length > 99) throw new RangeError(`QRIS tag ${tag} is longer than 99 bytes`);
  return `${tag}${String(length).padStart(2, "0")}${value}`;
}

/** Fields of a dynamic QRIS payload. */
export interface QrisPayloadInput {
  /** Charged amount in rupiah (tag 54). */
  amount: number;
  merchantName: string;
  merchantCity: string;
  postalCode: string;
  /** National merchant id (tag 51.02). */
  nmid: string;
  /** Reference label (tag 62.05): the fake puts the history id's first block here. */
  reference: string;
}

/**
 * A dynamic (point of initiation `12`) QRIS string with its CRC.
 *
 * @example
 * buildQrisString({ amount: 100001, merchantName: "TOKO KITA", merchantCity: "JAKARTA", postalCode: "10110",
 *   nmid: "ID1026123456789", reference: "3f2a9c1e" }).slice(-8, -4); // "6304", then 4 hex digits of CRC
 */
export function buildQrisString(input: QrisPayloadInput): string {
  const payload = [
    tlv("00", "01"),
    tlv("01", "12"),
    tlv("26", tlv("00", "ID.CO.KIRIMBAYAR.WWW") + tlv("01", `93600914${input.nmid.slice(-10)}`) + tlv("03", "UMI")),
    tlv("51", tlv("00", "ID.CO.QRIS.WWW") + tlv("02", input.nmid) + tlv("03", "UMI")),
    tlv("52", "5812"),
    tlv("53", "360"),
    tlv("54", String(input.amount)),
    tlv("58", "ID"),
    tlv("59", input.merchantName.slice(0, 25)),
    tlv("60", input.merchantCity.slice(0, 15)),
    tlv("61", input.postalCode),
    tlv("62", tlv("05", input.reference.slice(0, 25))),
  ].join("");
  return withQrisCrc(payload);
}
