// The QR service's flow overview documents a third webhook body besides the spec's envelope: flat, with no `event`,
// `timestamp` or `data` (FIELD-NOTES). It is mapped to the same envelope, so handlers get the same typed events and
// the idempotency key is the same for both shapes of one payment (they dedupe against each other).

/** True for a JSON object in the flat shape: no `event`, and a `payment_status`. */
export function isFlatQrisBody(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    !Object.hasOwn(value, "event") &&
    Object.hasOwn(value, "payment_status")
  );
}

/** The event name a flat body's `payment_status` stands for: `paid`, `expired`, else `payment.<status>`. */
export function flatQrisEventName(body: Record<string, unknown>): string {
  const status = typeof body.payment_status === "string" ? body.payment_status.trim().toLowerCase() : "";
  if (status === "paid") return "payment.success";
  if (status === "expired") return "payment.expired";
  return `payment.${status === "" ? "unknown" : status}`;
}

/**
 * The envelope a flat body stands for: `event` from `payment_status`; `timestamp` from `paid_at` (paid) or
 * `expired_at` (expired), else empty; `data` holds every flat field as sent, plus `qris_history_id` (from
 * `history_id` when only that is sent) and `status` (the lower-cased `payment_status`). `amount` stays the QR's
 * amount (with the unique code, as in the envelope); `paid_amount` is kept beside it.
 */
export function flatQrisToEnvelope(body: Record<string, unknown>): Record<string, unknown> {
  const event = flatQrisEventName(body);
  const time = event === "payment.success" ? body.paid_at : event === "payment.expired" ? body.expired_at : undefined;
  const data: Record<string, unknown> = { ...body };
  if (data.qris_history_id === undefined && data.history_id !== undefined) data.qris_history_id = data.history_id;
  if (typeof body.payment_status === "string") data.status = body.payment_status.trim().toLowerCase();
  return { event, timestamp: typeof time === "string" ? time : "", data, format: "flat" };
}
