const encoder = new TextEncoder();

/**
 * CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, xorout 0), the checksum of EMVCo/QRIS payloads.
 * Strings are hashed as their UTF-8 bytes.
 *
 * @example
 * crc16CcittFalse("123456789"); // 0x29B1
 */
export function crc16CcittFalse(input: string | Uint8Array): number {
  const bytes = typeof input === "string" ? encoder.encode(input) : input;
  let crc = 0xffff;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

/**
 * Writes a CRC as QRIS does: 4 upper-case hex digits, left-padded with zeros (`0x0A1` → `"00A1"`).
 *
 * @example
 * formatCrc16(0x29b1); // "29B1"
 */
export function formatCrc16(crc: number): string {
  return (crc & 0xffff).toString(16).toUpperCase().padStart(4, "0");
}
