import type { Order, OrderEvent } from "./order.js";

/**
 * Appends an event to an order's log. Used inside `OrderRepository.update` so the log and the status change are
 * stored together.
 *
 * @example
 * await orders.update(id, (order) => { order.status = "paid"; logEvent(order, now, "qris", "payment.success", "paid 150001") });
 */
export function logEvent(
  order: Pick<Order, "events">,
  at: Date,
  source: OrderEvent["source"],
  type: string,
  detail: string,
): void {
  order.events.push({ at: at.toISOString(), source, type, detail });
}

/**
 * Formats rupiah the Indonesian way, for event details.
 *
 * @example
 * rupiah(150001); // "Rp150.001"
 */
export function rupiah(amount: number): string {
  return `Rp${amount.toLocaleString("id-ID")}`;
}
