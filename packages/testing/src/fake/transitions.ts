// Which moves the control API and the simulator page offer from each state. The world's own methods stay permissive
// where the real services are (an order's status is an open set there); these tables are what a person clicking
// through a payment should be able to do, and what a 409 lists when they try something else.
import type { PaymentStatus } from "../fixtures/payment.js";
import type { QrisStatus } from "../fixtures/qris.js";

/** What can happen to a payment (virtual account or gateway QRIS). */
export type PaymentAction = "pay" | "expire" | "cancel";

/** What can happen to a QR code. */
export type QrisAction = "pay" | "expire";

/** Actions allowed on a payment in `status`: only a PENDING payment can change. */
export function paymentActions(status: PaymentStatus): PaymentAction[] {
  return status === "PENDING" ? ["pay", "expire", "cancel"] : [];
}

/** Actions allowed on a QR code in `status`: only an unpaid code can change. */
export function qrisActions(status: QrisStatus): QrisAction[] {
  return status === "unpaid" ? ["pay", "expire"] : [];
}

/** The order statuses of the order service, in the order a shipment goes through them. */
export const ORDER_STATUS_FLOW = ["Diajukan", "Dijemput", "Dikirim", "Selesai"] as const;

/** The status of a cancelled shipment: possible until the parcel leaves (`Dikirim`). */
export const ORDER_CANCELLED = "Dibatalkan";

/**
 * Statuses an order can move to from `status`: any later step of {@link ORDER_STATUS_FLOW} (a courier may scan
 * several at once), and `Dibatalkan` before `Dikirim`. `Selesai` and `Dibatalkan` are final. An order in a status
 * outside the flow (set from code) may move to any status of the flow.
 */
export function nextOrderStatuses(status: string): string[] {
  if (status === ORDER_CANCELLED) return [];
  const index = ORDER_STATUS_FLOW.indexOf(status as (typeof ORDER_STATUS_FLOW)[number]);
  if (index === -1) return [...ORDER_STATUS_FLOW, ORDER_CANCELLED];
  const later: string[] = ORDER_STATUS_FLOW.slice(index + 1);
  return index < ORDER_STATUS_FLOW.indexOf("Dikirim") ? [...later, ORDER_CANCELLED] : later;
}

/** "pay, expire" or "none (a final state)", for error messages. */
export function describeAllowed(allowed: readonly string[]): string {
  return allowed.length === 0 ? "none (a final state)" : allowed.join(", ");
}
