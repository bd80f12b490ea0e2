import { createHash } from "node:crypto";

/**
 * A UUID derived from an idempotency key (SHA-256, shaped as a version-8 UUID): pg-boss job ids are UUIDs, and
 * one id per key is what makes a redelivery's job a duplicate while the first one exists.
 */
export function uuidOfKey(key: string): string {
  const hex = createHash("sha256").update(key).digest("hex");
  const variant = ((Number.parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}

/** A BullMQ job id for a key: BullMQ refuses `:` in custom ids, which every default key has. */
export function bullMqIdOfKey(key: string): string {
  return key.replaceAll("%", "%25").replaceAll(":", "%3A");
}
