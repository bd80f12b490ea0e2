// What the provider's status endpoints say, turned into the webhook payload the same event would have carried, so
// the receiver parses it with the webhook's own schema and dedupes it under the webhook's own key.

/** The fields of a QR status record the reconciler reads (from `QrisClient.getQrisPaymentStatus`). */
export interface QrisStatusRecord {
  readonly history_id?: string | number | undefined;
  readonly payment_status?: string | undefined;
  readonly [field: string]: unknown;
}

/** The fields of a payment record the reconciler reads (from `PaymentGatewayClient.getPaymentStatus`). */
export interface GatewayPaymentRecord {
  readonly payment_id?: string | number | undefined;
  readonly status?: string | undefined;
  readonly [field: string]: unknown;
}

const QRIS_STILL_PENDING = new Set(["unpaid", "pending"]);
const GATEWAY_STILL_PENDING = new Set(["PENDING"]);

/**
 * The QR webhook body (the spec's envelope: `event`, `timestamp`, `data`) for a status that has moved on, or
 * `undefined` while the payment is still unpaid: `paid` → `payment.success`, `expired` → `payment.expired`, any
 * other state (`cancelled`, or one added later) → `payment.<state>`. The amount is the record's `amount`, else its
 * `final_amount`, else the one the app passed with the reference (the `final_amount` it got at generate time).
 */
export function qrisWebhookFromStatus(
  historyId: string | number,
  record: QrisStatusRecord,
  knownAmount: number | undefined,
  now: number,
): object | undefined {
  const status = String(record.payment_status ?? "").toLowerCase();
  if (status === "" || QRIS_STILL_PENDING.has(status)) return undefined;
  const event = status === "paid" ? "payment.success" : status === "expired" ? "payment.expired" : `payment.${status}`;
  const amount = record.amount ?? record.final_amount ?? knownAmount;
  const paidAt = typeof record.paid_at === "string" ? record.paid_at : undefined;
  const data: Record<string, unknown> = { qris_history_id: historyId, status };
  if (amount != null) data.amount = amount;
  if (record.original_amount != null) data.original_amount = record.original_amount;
  if (paidAt !== undefined) data.paid_at = paidAt;
  if (typeof record.expiry_time === "string") data.expired_at = record.expiry_time;
  return { event, timestamp: isoTimestamp(now), data };
}

// The last timestamp formatted: a run polls many references within the same millisecond, and formatting a Date
// was a visible share of the per-reference cost. Same string as `new Date(now).toISOString()`.
let lastNow = Number.NaN;
let lastIso = "";
function isoTimestamp(now: number): string {
  if (now !== lastNow) {
    lastIso = new Date(now).toISOString();
    lastNow = now;
  }
  return lastIso;
}

/**
 * The payment-gateway callback body for a payment that has moved on (PAID, EXPIRED, CANCELED, or a state added
 * later), or `undefined` while it is still PENDING.
 */
export function gatewayCallbackFromStatus(paymentId: string, record: GatewayPaymentRecord): object | undefined {
  const status = String(record.status ?? "").toUpperCase();
  if (status === "" || GATEWAY_STILL_PENDING.has(status)) return undefined;
  // Only what the wire carried: the client adds parsed forms (`expired_at_date`) that no webhook has.
  const wire = Object.fromEntries(Object.entries(record).filter(([name]) => !name.endsWith("_date")));
  return { ...wire, payment_id: paymentId, status };
}
