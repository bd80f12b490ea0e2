import type { Order, OrderRepository } from "@kirimbayar/example-shop-domain";
import type { DataSource, EntityManager } from "typeorm";
import { OrderCounterEntity, OrderEntity, type OrderRow, PaymentReferenceEntity } from "./entities.js";

const refsOf = (order: Order): string[] =>
  order.payments.map((payment) => (payment.method === "qris" ? payment.history_id : payment.payment_id));
const awaiting = (order: Order): boolean => order.payments.some((payment) => payment.state === "pending");

/**
 * Orders through TypeORM (PostgreSQL, or MySQL/MariaDB). `within(manager)` is the same repository on a transaction's
 * `EntityManager` (a transactional webhook's `ctx.transaction`): the order update then commits or rolls back together
 * with the webhook's idempotency record.
 *
 * @example
 * const orders = new TypeOrmOrderRepository(dataSource.manager);
 * await orders.update(id, (order) => { order.status = "paid" });
 */
export class TypeOrmOrderRepository implements OrderRepository {
  constructor(
    private readonly manager: EntityManager,
    /** `true` on a manager that already holds a transaction: no transaction of its own. */
    private readonly inTransaction = false,
  ) {}

  /** The repository of `dataSource`'s own manager. */
  static of(dataSource: DataSource): TypeOrmOrderRepository {
    return new TypeOrmOrderRepository(dataSource.manager);
  }

  /** The repository on `manager`, the `EntityManager` of an open transaction. */
  within(manager: EntityManager): TypeOrmOrderRepository {
    return new TypeOrmOrderRepository(manager, true);
  }

  async create(order: Omit<Order, "id">): Promise<Order> {
    return this.#transaction(async (manager) => {
      const number = await nextOrderNumber(manager);
      const stored = { id: `ORD-${String(number).padStart(6, "0")}`, ...order } as Order;
      await manager.insert(OrderEntity, { id: stored.id, doc: stored, awaitingPayment: awaiting(stored) });
      await savePaymentReferences(manager, stored);
      return stored;
    });
  }

  async get(id: string): Promise<Order | undefined> {
    return (await this.manager.findOneBy(OrderEntity, { id }))?.doc;
  }

  async findByPaymentReference(reference: string): Promise<Order | undefined> {
    const found = await this.manager.findOneBy(PaymentReferenceEntity, { reference });
    return found === null ? undefined : this.get(found.orderId);
  }

  async listAwaitingPayment(): Promise<Order[]> {
    const rows = await this.manager.find(OrderEntity, { where: { awaitingPayment: true }, order: { id: "ASC" } });
    return rows.map((row: OrderRow) => row.doc);
  }

  async update(id: string, change: (order: Order) => void): Promise<Order | undefined> {
    return this.#transaction(async (manager) => {
      // The row lock makes two webhooks about one order apply one after the other.
      const row = await manager.findOne(OrderEntity, { where: { id }, lock: { mode: "pessimistic_write" } });
      if (row === null) return undefined;
      const order = row.doc;
      change(order);
      await manager.update(OrderEntity, { id }, { doc: order, awaitingPayment: awaiting(order) });
      await savePaymentReferences(manager, order);
      return order;
    });
  }

  #transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.inTransaction ? work(this.manager) : this.manager.transaction(work);
  }
}

async function nextOrderNumber(manager: EntityManager): Promise<number> {
  const counter = await manager.findOne(OrderCounterEntity, {
    where: { name: "orders" },
    lock: { mode: "pessimistic_write" },
  });
  const value = (counter?.value ?? 0) + 1;
  await manager.save(OrderCounterEntity, { name: "orders", value });
  return value;
}

async function savePaymentReferences(manager: EntityManager, order: Order): Promise<void> {
  const references = refsOf(order).map((reference) => ({ reference, orderId: order.id }));
  if (references.length > 0) await manager.upsert(PaymentReferenceEntity, references, ["reference"]);
}
