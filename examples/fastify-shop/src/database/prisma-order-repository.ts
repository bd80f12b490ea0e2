import type { Order, OrderRepository } from "@kirimbayar/example-shop-domain";
import type { Prisma, PrismaClient } from "../generated/prisma/client.js";

/** Prisma's client inside an interactive transaction (what `prisma.$transaction(async (tx) => …)` hands over). */
export type PrismaTransactionClient = Prisma.TransactionClient;

const refsOf = (order: Order): string[] =>
  order.payments.map((payment) => (payment.method === "qris" ? payment.history_id : payment.payment_id));
const awaiting = (order: Order): boolean => order.payments.some((payment) => payment.state === "pending");
const toOrder = (doc: Prisma.JsonValue): Order => doc as unknown as Order;
const toJson = (order: Order): Prisma.InputJsonValue => order as unknown as Prisma.InputJsonValue;

/**
 * Orders through Prisma. `within(tx)` is the same repository on an interactive transaction's client (a transactional
 * webhook's `ctx.transaction`): the order update then commits or rolls back together with the webhook's idempotency
 * record.
 *
 * @example
 * const orders = PrismaOrderRepository.of(prisma);
 * await orders.update(id, (order) => { order.status = "paid" });
 */
export class PrismaOrderRepository implements OrderRepository {
  private constructor(
    private readonly db: PrismaTransactionClient,
    /** The root client, to open transactions; absent on a repository that already runs inside one. */
    private readonly root: PrismaClient | undefined,
  ) {}

  /** The repository of the root client: each change in a transaction of its own. */
  static of(prisma: PrismaClient): PrismaOrderRepository {
    return new PrismaOrderRepository(prisma, prisma);
  }

  /** The repository on `tx`, the client of an open interactive transaction. */
  within(tx: PrismaTransactionClient): PrismaOrderRepository {
    return new PrismaOrderRepository(tx, undefined);
  }

  async create(order: Omit<Order, "id">): Promise<Order> {
    return this.#transaction(async (tx) => {
      const counter = await tx.shopOrderCounter.update({
        where: { name: "orders" },
        data: { value: { increment: 1 } },
      });
      const stored = { id: `ORD-${String(counter.value).padStart(6, "0")}`, ...order } as Order;
      await tx.shopOrder.create({ data: { id: stored.id, doc: toJson(stored), awaitingPayment: awaiting(stored) } });
      await savePaymentReferences(tx, stored);
      return stored;
    });
  }

  async get(id: string): Promise<Order | undefined> {
    const row = await this.db.shopOrder.findUnique({ where: { id } });
    return row === null ? undefined : toOrder(row.doc);
  }

  async findByPaymentReference(reference: string): Promise<Order | undefined> {
    const found = await this.db.shopPaymentReference.findUnique({ where: { reference } });
    return found === null ? undefined : this.get(found.orderId);
  }

  async listAwaitingPayment(): Promise<Order[]> {
    const rows = await this.db.shopOrder.findMany({ where: { awaitingPayment: true }, orderBy: { id: "asc" } });
    return rows.map((row) => toOrder(row.doc));
  }

  async update(id: string, change: (order: Order) => void): Promise<Order | undefined> {
    return this.#transaction(async (tx) => {
      // The row lock makes two webhooks about one order apply one after the other (Prisma has no API for it).
      const locked = await tx.$queryRaw<
        { doc: Prisma.JsonValue }[]
      >`SELECT doc FROM shop_orders WHERE id = ${id} FOR UPDATE`;
      if (locked[0] === undefined) return undefined;
      const order = toOrder(locked[0].doc);
      change(order);
      await tx.shopOrder.update({ where: { id }, data: { doc: toJson(order), awaitingPayment: awaiting(order) } });
      await savePaymentReferences(tx, order);
      return order;
    });
  }

  #transaction<T>(work: (tx: PrismaTransactionClient) => Promise<T>): Promise<T> {
    return this.root === undefined ? work(this.db) : this.root.$transaction(work);
  }
}

async function savePaymentReferences(tx: PrismaTransactionClient, order: Order): Promise<void> {
  for (const reference of refsOf(order)) {
    await tx.shopPaymentReference.upsert({
      where: { reference },
      create: { reference, orderId: order.id },
      update: {},
    });
  }
}
