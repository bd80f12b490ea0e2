import type {
  OrderStatusWebhook,
  PaymentCallback,
  QrisPaymentExpiredEvent,
  QrisPaymentSuccessEvent,
} from "@kirimbayar/core/webhooks";
import { logEvent, rupiah } from "./event-log.js";
import type { Order, OrderStatus } from "./order.js";
import type { OrderRepository } from "./order-repository.js";

/** A webhook that matched no order: kept for an operator, and acknowledged (a retry could never match either). */
export interface UnmatchedWebhook {
  at: string;
  source: "qris" | "payment" | "orders";
  reference: string;
  detail: string;
}

const MAX_UNMATCHED = 1_000;

/** Where an event came from: its webhook, or the reconciler asking the provider after every webhook failed. */
export type EventOrigin = "webhook" | "reconciliation" | "inbox";

const originNote = (origin: EventOrigin): string =>
  origin === "reconciliation" ? " (found by reconciliation: its webhooks never arrived)" : "";

// How far along the delivery an order is; shipping updates only move it forward, whatever order they arrive in.
const DELIVERY_RANK: Partial<Record<OrderStatus, number>> = { paid: 1, shipped: 2, delivered: 3 };

/**
 * What the shop does with each webhook, independent of the framework receiving it. Each method is idempotent in
 * effect, but relies on the receiver's idempotency store to skip duplicate deliveries (so the log shows each event
 * once). A method throws only on a transient failure, so the provider retries.
 *
 * @example
 * const handlers = new ShopWebhookHandlers(orders);
 * qrisReceiver.on("payment.success", (event) => handlers.qrisPaid(event));
 */
export class ShopWebhookHandlers {
  readonly #orders: OrderRepository;
  readonly #now: () => Date;
  readonly #unmatched: UnmatchedWebhook[];

  constructor(orders: OrderRepository, now: () => Date = () => new Date(), unmatched: UnmatchedWebhook[] = []) {
    this.#orders = orders;
    this.#now = now;
    this.#unmatched = unmatched;
  }

  /**
   * The same handlers writing through `orders` instead, e.g. the repository on a transactional webhook's
   * connection, so the order update commits with the webhook's idempotency record.
   */
  within(orders: OrderRepository): ShopWebhookHandlers {
    return new ShopWebhookHandlers(orders, this.#now, this.#unmatched);
  }

  /** The latest 1,000 webhooks that named no known order, oldest first. */
  get unmatched(): readonly UnmatchedWebhook[] {
    return this.#unmatched;
  }

  /**
   * `payment.success` of a QR code: the order is paid when the charged amount equals the `final_amount` quoted at
   * generation (order total plus the unique code). Any other amount puts it in `payment_review`.
   */
  async qrisPaid(event: QrisPaymentSuccessEvent, origin: EventOrigin = "webhook"): Promise<void> {
    const historyId = String(event.data.qris_history_id);
    const paid = event.data.amount;
    await this.#updateByPayment("qris", historyId, `payment.success for ${rupiah(paid)}`, (order, at) => {
      const payment = order.payments.find((p) => p.method === "qris" && p.history_id === historyId);
      if (payment?.method !== "qris") return;
      payment.state = "paid";
      this.#settle(order, at, "qris", paid, payment.final_amount, `QR ${historyId}${originNote(origin)}`);
    });
  }

  /** `payment.expired` of a QR code: the order expires unless another payment of it is still open or done. */
  async qrisExpired(event: QrisPaymentExpiredEvent, origin: EventOrigin = "webhook"): Promise<void> {
    const historyId = String(event.data.qris_history_id);
    await this.#updateByPayment("qris", historyId, "payment.expired", (order, at) => {
      const payment = order.payments.find((p) => p.method === "qris" && p.history_id === historyId);
      if (payment === undefined) return;
      if (payment.state === "pending") payment.state = "expired";
      logEvent(order, at, "qris", "payment.expired", `QR ${historyId} expired unpaid${originNote(origin)}`);
      this.#expireIfNothingOpen(order);
    });
  }

  /**
   * The payment gateway's callback for a virtual account: `PAID` is reconciled against the amount of that payment,
   * `EXPIRED` and `CANCELED` close it.
   */
  async paymentCallback(callback: PaymentCallback, origin: EventOrigin = "webhook"): Promise<void> {
    const paymentId = callback.payment_id === undefined ? undefined : String(callback.payment_id);
    const status = (callback.status ?? "").toUpperCase();
    // The callback's body is not published: find the order by payment id, or else by our order id.
    const orderId = callback.order_id === undefined ? undefined : String(callback.order_id);
    const found =
      paymentId !== undefined
        ? await this.#orders.findByPaymentReference(paymentId)
        : orderId !== undefined
          ? await this.#orders.get(orderId)
          : undefined;
    await this.#updateFound("payment", found, paymentId ?? orderId ?? "(none)", `callback ${status}`, (order, at) => {
      const payment = order.payments.find(
        (p) => p.method === "va" && (paymentId === undefined || p.payment_id === paymentId),
      );
      if (payment?.method !== "va") return;
      if (status === "PAID") {
        payment.state = "paid";
        const what = `VA ${payment.payment_id}${originNote(origin)}`;
        this.#settle(order, at, "payment", callback.amount ?? 0, payment.amount, what);
      } else if (status === "EXPIRED" || status === "CANCELED") {
        if (payment.state === "pending") payment.state = status === "EXPIRED" ? "expired" : "cancelled";
        const detail = `VA ${payment.payment_id} ${status}${originNote(origin)}`;
        logEvent(order, at, "payment", `payment.${status.toLowerCase()}`, detail);
        this.#expireIfNothingOpen(order);
      } else {
        logEvent(order, at, "payment", "payment.status", `VA ${payment.payment_id} is ${status || "(no status)"}`);
      }
    });
  }

  /** An order status change from the shipping service: `Dikirim` ships the order, `Selesai` delivers it. */
  async orderStatus(change: OrderStatusWebhook): Promise<void> {
    const orderNo = String(change.order_no);
    const cnote = String(change.cnote);
    const at = this.#now();
    const updated = await this.#orders.update(orderNo, (order) => {
      logEvent(order, at, "orders", "order.status", `${change.status} (waybill ${cnote})`);
      order.cnote = cnote;
      const target: OrderStatus | undefined =
        change.status === "Dikirim" ? "shipped" : change.status === "Selesai" ? "delivered" : undefined;
      if (target === undefined) return;
      const current = DELIVERY_RANK[order.status];
      if (current === undefined) {
        logEvent(
          order,
          at,
          "shop",
          "order.attention",
          `courier reports ${change.status} for an order that is ${order.status}`,
        );
      } else if ((DELIVERY_RANK[target] ?? 0) > current) {
        order.status = target;
      }
    });
    if (updated === undefined) this.#unmatch("orders", orderNo, `status ${change.status}`);
  }

  #settle(order: Order, at: Date, source: "qris" | "payment", paid: number, quoted: number, what: string): void {
    if (DELIVERY_RANK[order.status] !== undefined) {
      logEvent(
        order,
        at,
        "shop",
        "payment.extra",
        `${what} paid ${rupiah(paid)} but the order was already paid: refund it`,
      );
    } else if (paid === quoted) {
      order.status = "paid";
      logEvent(order, at, source, "payment.success", `${what} paid ${rupiah(paid)}, matches the quoted amount`);
    } else {
      order.status = "payment_review";
      logEvent(order, at, source, "payment.mismatch", `${what} paid ${rupiah(paid)} but ${rupiah(quoted)} was quoted`);
    }
  }

  #expireIfNothingOpen(order: Order): void {
    if (order.status !== "awaiting_payment") return;
    if (order.payments.every((p) => p.state === "expired" || p.state === "cancelled")) order.status = "expired";
  }

  async #updateByPayment(
    source: "qris" | "payment",
    reference: string,
    detail: string,
    change: (order: Order, at: Date) => void,
  ): Promise<void> {
    await this.#updateFound(source, await this.#orders.findByPaymentReference(reference), reference, detail, change);
  }

  async #updateFound(
    source: "qris" | "payment",
    order: Order | undefined,
    reference: string,
    detail: string,
    change: (order: Order, at: Date) => void,
  ): Promise<void> {
    if (order === undefined) {
      this.#unmatch(source, reference, detail);
      return;
    }
    await this.#orders.update(order.id, (stored) => change(stored, this.#now()));
  }

  #unmatch(source: UnmatchedWebhook["source"], reference: string, detail: string): void {
    this.#unmatched.push({ at: this.#now().toISOString(), source, reference, detail });
    // Kept in memory for the example: only the latest ones, so a flood of strays cannot grow it without end.
    if (this.#unmatched.length > MAX_UNMATCHED) this.#unmatched.shift();
  }
}
