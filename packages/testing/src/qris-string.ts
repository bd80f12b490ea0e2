// Builds EMVCo merchant-presented QR payloads the way QRIS codes are laid out, so that fixture and fake QR strings
// parse, carry the charged amount in tag 54 and pass the CRC check of core's QRIS tools (which also close them).

/** UTF-8 length of `value` without encoding it (QRIS counts bytes; names are ASCII in practice). */
function utf8Length(value: string): number {
  let bytes = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4; // a surrogate pair: one 4-byte character
      i++;
    } else bytes += 3;
  }
  return bytes;
}

// CRC-16/CCITT-FALSE by table, as core's `computeQrisCrc` computes it bit by bit: the fake builds a string per QR
// code and per gateway QRIS payment, and this is most of that cost. Tests parse the result with core's checker.
const CRC_TABLE = Uint16Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  return crc;
});
const encoder = new TextEncoder();

function crc16(text: string): string {
  let crc = 0xffff;
  // QRIS payloads are printable ASCII in practice: read the characters as bytes, and encode only when one is not.
  if (!/[^ -~]/.test(text)) {
    for (let i = 0; i < text.length; i++) crc = crcStep(crc, text.charCodeAt(i));
  } else {
    for (const byte of encoder.encode(text)) crc = crcStep(crc, byte);
  }
  return (HEX_UPPER[crc >> 8] as string) + HEX_UPPER[crc & 0xff];
}

// Number#toString(16) takes V8's slow path: two table look-ups give the same four digits.
const HEX_UPPER = Array.from({ length: 256 }, (_, byte) => byte.toString(16).toUpperCase().padStart(2, "0"));

// A plain function of the running value (not a closure over it), so V8 keeps the loop in registers.
function crcStep(crc: number, byte: number): number {
  return ((crc << 8) & 0xffff) ^ (CRC_TABLE[(crc >> 8) ^ byte] as number);
}

function tlv(tag: string, value: string): string {
  const length = utf8Length(value);
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
  const payload =
    merchantAccount(input.nmid) +
    tlv("54", String(input.amount)) +
    merchantLocation(input.merchantName, input.merchantCity, input.postalCode) +
    tlv("62", tlv("05", input.reference.slice(0, 25)));
  const head = `${payload}6304`;
  return `${head}${crc16(head)}`;
}

// The tags around the amount depend only on the merchant: the fake builds every code of a configuration with the
// same ones, so the last of each is kept.
let lastAccount: { nmid: string; tags: string } | undefined;
let lastLocation: { key: string; tags: string } | undefined;

/** Tags 00–53: format, dynamic initiation, the merchant account templates, category, currency. */
function merchantAccount(nmid: string): string {
  if (lastAccount?.nmid !== nmid) {
    const tags = [
      tlv("00", "01"),
      tlv("01", "12"),
      tlv("26", tlv("00", "ID.CO.KIRIMBAYAR.WWW") + tlv("01", `93600914${nmid.slice(-10)}`) + tlv("03", "UMI")),
      tlv("51", tlv("00", "ID.CO.QRIS.WWW") + tlv("02", nmid) + tlv("03", "UMI")),
      tlv("52", "5812"),
      tlv("53", "360"),
    ].join("");
    lastAccount = { nmid, tags };
  }
  return lastAccount.tags;
}

/** Tags 58–61: country, merchant name and city, postal code. */
function merchantLocation(name: string, city: string, postalCode: string): string {
  const key = `${name}\n${city}\n${postalCode}`;
  if (lastLocation?.key !== key) {
    const tags = tlv("58", "ID") + tlv("59", name.slice(0, 25)) + tlv("60", city.slice(0, 15)) + tlv("61", postalCode);
    lastLocation = { key, tags };
  }
  return lastLocation.tags;
}
