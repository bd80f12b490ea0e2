// IPv4/IPv6 address and CIDR parsing for the source-IP allowlist. Addresses become byte arrays (4 or 16 bytes);
// IPv4-mapped IPv6 addresses (`::ffff:203.0.113.7`, what a dual-stack Node socket reports) become IPv4.

/** A parsed CIDR block. */
export interface CidrBlock {
  readonly bytes: Uint8Array;
  readonly prefixLength: number;
}

function parseIpv4(text: string): Uint8Array | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i] as string;
    if (!/^\d{1,3}$/.test(part) || (part.length > 1 && part.startsWith("0"))) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    out[i] = value;
  }
  return out;
}

function parseIpv6(text: string): Uint8Array | undefined {
  let address = text;
  const zone = address.indexOf("%");
  if (zone >= 0) address = address.slice(0, zone);
  const words: number[] = [];
  let tail: Uint8Array | undefined;
  const lastColon = address.lastIndexOf(":");
  if (address.includes(".", lastColon)) {
    tail = parseIpv4(address.slice(lastColon + 1));
    if (tail === undefined) return undefined;
    address = `${address.slice(0, lastColon + 1)}0:0`;
  }
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const parseWords = (half: string): number[] | undefined => {
    if (half === "") return [];
    const result: number[] = [];
    for (const word of half.split(":")) {
      if (!/^[0-9a-f]{1,4}$/i.test(word)) return undefined;
      result.push(Number.parseInt(word, 16));
    }
    return result;
  };
  const head = parseWords(halves[0] as string);
  const rest = halves.length === 2 ? parseWords(halves[1] as string) : [];
  if (head === undefined || rest === undefined) return undefined;
  if (halves.length === 2) {
    if (head.length + rest.length > 7) return undefined;
    words.push(...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest);
  } else {
    if (head.length !== 8) return undefined;
    words.push(...head);
  }
  const out = new Uint8Array(16);
  words.forEach((word, i) => {
    out[2 * i] = word >> 8;
    out[2 * i + 1] = word & 0xff;
  });
  if (tail !== undefined) out.set(tail, 12);
  return out;
}

function isIpv4Mapped(bytes: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/**
 * Bytes of an IPv4 or IPv6 address (brackets, a zone id and an IPv4 port are tolerated), or `undefined`.
 * IPv4-mapped IPv6 addresses come back as 4-byte IPv4.
 */
export function parseIpAddress(text: string): Uint8Array | undefined {
  let address = text.trim();
  if (address.startsWith("[")) {
    const close = address.indexOf("]");
    if (close < 0) return undefined;
    address = address.slice(1, close);
  } else if (/^[\d.]+:\d+$/.test(address)) {
    address = address.slice(0, address.indexOf(":"));
  }
  if (!address.includes(":")) return parseIpv4(address);
  const bytes = parseIpv6(address);
  if (bytes !== undefined && isIpv4Mapped(bytes)) return bytes.slice(12);
  return bytes;
}

/** Parses `"203.0.113.0/24"`, `"2001:db8::/32"` or a bare address (a /32 or /128 block). */
export function parseCidr(text: string): CidrBlock | undefined {
  const slash = text.indexOf("/");
  const address = slash < 0 ? text : text.slice(0, slash);
  let bytes = parseIpAddress(address);
  if (bytes === undefined) return undefined;
  let prefixLength = bytes.length * 8;
  if (slash >= 0) {
    const prefix = text.slice(slash + 1).trim();
    if (!/^\d{1,3}$/.test(prefix)) return undefined;
    prefixLength = Number(prefix);
    // `::ffff:10.0.0.0/104` was turned into IPv4 above: its prefix loses the 96 mapped bits.
    if (bytes.length === 4 && address.includes(":")) prefixLength -= 96;
    if (prefixLength < 0 || prefixLength > bytes.length * 8) return undefined;
  }
  bytes = new Uint8Array(bytes);
  return { bytes, prefixLength };
}

/** True when `address` lies in `block` (same family only). */
export function cidrContains(block: CidrBlock, address: Uint8Array): boolean {
  if (block.bytes.length !== address.length) return false;
  let bits = block.prefixLength;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((block.bytes[i] as number) & mask) !== ((address[i] as number) & mask)) return false;
  }
  return true;
}
