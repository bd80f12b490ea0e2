import type { Order } from "./order.js";

/**
 * Storage of orders. The examples keep them in memory; a real shop puts a database behind the same four methods
 * (`update` becomes a transaction, so two webhooks about one order never overwrite each other).
 */
export interface OrderRepository {
  /** Stores a new order under a fresh id (`ORD-...`) and returns it. */
  create(order: Omit<Order, "id">): Promise<Order>;
  get(id: string): Promise<Order | undefined>;
  /** Finds the order a payment belongs to, by QRIS `history_id` or gateway `payment_id`. */
  findByPaymentReference(reference: string): Promise<Order | undefined>;
  /** Applies `change` to the stored order atomically and returns the result, or `undefined` for an unknown id. */
  update(id: string, change: (order: Order) => void): Promise<Order | undefined>;
  /** Orders with a payment still pending: what the reconciler asks the provider about. */
  listAwaitingPayment(): Promise<Order[]>;
}

/**
 * An {@link OrderRepository} in process memory. Orders are copied in and out, so a caller can never change a stored
 * order except through `update`.
 *
 * @example
 * const orders = new InMemoryOrderRepository();
 * const order = await orders.create({ ...draft });
 * await orders.update(order.id, (o) => { o.status = "paid" });
 */
export class InMemoryOrderRepository implements OrderRepository {
  readonly #orders = new Map<string, Order>();
  #sequence = 0;

  async create(order: Omit<Order, "id">): Promise<Order> {
    this.#sequence += 1;
    const stored: Order = { id: `ORD-${String(this.#sequence).padStart(6, "0")}`, ...structuredClone(order) };
    this.#orders.set(stored.id, stored);
    return structuredClone(stored);
  }

  async get(id: string): Promise<Order | undefined> {
    const order = this.#orders.get(id);
    return order === undefined ? undefined : structuredClone(order);
  }

  async findByPaymentReference(reference: string): Promise<Order | undefined> {
    for (const order of this.#orders.values()) {
      const matches = order.payments.some((payment) =>
        payment.method === "qris" ? payment.history_id === reference : payment.payment_id === reference,
      );
      if (matches) return structuredClone(order);
    }
    return undefined;
  }

  async listAwaitingPayment(): Promise<Order[]> {
    const awaiting: Order[] = [];
    for (const order of this.#orders.values()) {
      if (order.payments.some((payment) => payment.state === "pending")) awaiting.push(structuredClone(order));
    }
    return awaiting;
  }

  async update(id: string, change: (order: Order) => void): Promise<Order | undefined> {
    const stored = this.#orders.get(id);
    if (stored === undefined) return undefined;
    // Change a copy and swap it in, so a throwing `change` leaves the stored order untouched.
    const next = structuredClone(stored);
    change(next);
    this.#orders.set(id, next);
    return structuredClone(next);
  }
}
