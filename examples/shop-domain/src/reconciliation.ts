import type { PendingReference } from "@kirimbayar/core";
import type { OrderRepository } from "./order-repository.js";

/**
 * The payments the shop still waits for, as the reconciler's references: each pending QR code (with the
 * `final_amount` quoted at generation) and each pending virtual account.
 *
 * @example
 * reconciler.start({ every: 60_000, pending: () => pendingPaymentReferences(orders) });
 */
export async function pendingPaymentReferences(orders: OrderRepository): Promise<PendingReference[]> {
  const references: PendingReference[] = [];
  for (const order of await orders.listAwaitingPayment()) {
    for (const payment of order.payments) {
      if (payment.state !== "pending") continue;
      references.push(
        payment.method === "qris"
          ? { source: "qris", history_id: payment.history_id, amount: payment.final_amount }
          : { source: "payment", payment_id: payment.payment_id },
      );
    }
  }
  return references;
}
