import { KirimbayarError } from "../errors/base.js";

/** Why a QRIS payload was refused. */
export type QrisPayloadErrorReason =
  | "truncated_header"
  | "invalid_tag_id"
  | "non_digit_length"
  | "value_past_end"
  | "missing_crc"
  | "crc_mismatch"
  | "duplicate_crc"
  | "invalid_amount"
  | "amount_not_whole";

/**
 * A QRIS (EMVCo merchant-presented) payload is malformed. `position` is the character offset in the whole payload
 * where the problem starts; for a CRC mismatch `expectedCrc` (computed) and `actualCrc` (found) are set.
 *
 * @example
 * try { parseQrisPayload(text) } catch (e) {
 *   if (e instanceof QrisPayloadError) console.log(e.reason, "at", e.position);
 * }
 */
export class QrisPayloadError extends KirimbayarError {
  /** Machine-readable reason. */
  readonly reason: QrisPayloadErrorReason;
  /** Character offset (0-based) in the full payload. */
  readonly position: number;
  /** The CRC computed over the payload, on `crc_mismatch`. */
  readonly expectedCrc: string | undefined;
  /** The CRC the payload carries, on `crc_mismatch`. */
  readonly actualCrc: string | undefined;

  constructor(
    reason: QrisPayloadErrorReason,
    position: number,
    detail: string,
    crc?: { expected: string; actual: string },
  ) {
    super(`Malformed QRIS payload at position ${position}: ${detail}`, { code: "qris_payload_invalid" });
    this.reason = reason;
    this.position = position;
    this.expectedCrc = crc?.expected;
    this.actualCrc = crc?.actual;
  }
}
