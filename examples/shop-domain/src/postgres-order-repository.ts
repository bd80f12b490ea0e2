import type { PgQueryable } from "@kirimbayar/core/postgres";
import type { Order } from "./order.js";
import type { OrderRepository } from "./order-repository.js";

/** Runs `work` in one database transaction and returns its result (rolled back if it throws). */
export type RunInTransaction = <T>(work: (db: PgQueryable) => Promise<T>) => Promise<T>;

/** The orders table: the order document as JSON, with its payment references and "awaiting" flag for lookups. */
export const SHOP_ORDERS_SCHEMA = [
  "CREATE SEQUENCE IF NOT EXISTS shop_order_seq",
  `CREATE TABLE IF NOT EXISTS shop_orders (
  id text PRIMARY KEY,
  doc jsonb NOT NULL,
  payment_refs text[] NOT NULL,
  awaiting_payment boolean NOT NULL
)`,
];

const refsOf = (order: Order): string[] =>
  order.payments.map((payment) => (payment.method === "qris" ? payment.history_id : payment.payment_id));
const awaiting = (order: Order): boolean => order.payments.some((payment) => payment.state === "pending");
const toOrder = (row: Record<string, unknown>): Order =>
  (typeof row.doc === "string" ? JSON.parse(row.doc) : row.doc) as Order;

/**
 * Orders in PostgreSQL (a `pg` pool or PGlite). `within(tx)` gives the same repository on a connection that already
 * holds a transaction (a transactional webhook's `ctx.transaction`): the order update then commits or rolls back
 * together with the webhook's idempotency record.
 *
 * @example
 * const orders = new PostgresOrderRepository(db, (work) => db.transaction(work));
 * await orders.update(id, (order) => { order.status = "paid" });
 */
export class PostgresOrderRepository implements OrderRepository {
  constructor(
    private readonly db: PgQueryable,
    private readonly inTransaction: RunInTransaction,
  ) {}

  /** Creates the table (and the id sequence) when missing. */
  async ensureSchema(): Promise<void> {
    for (const statement of SHOP_ORDERS_SCHEMA) await this.db.query(statement);
  }

  /** The repository on `tx`, a connection inside an open transaction: no transaction of its own. */
  within(tx: PgQueryable): PostgresOrderRepository {
    return new PostgresOrderRepository(tx, (work) => work(tx));
  }

  async create(order: Omit<Order, "id">): Promise<Order> {
    const { rows } = await this.db.query("SELECT 'ORD-' || lpad(nextval('shop_order_seq')::text, 6, '0') AS id");
    const stored = { id: String(rows[0]?.id), ...order } as Order;
    await this.db.query(
      "INSERT INTO shop_orders (id, doc, payment_refs, awaiting_payment) VALUES ($1, $2::jsonb, $3, $4)",
      [stored.id, JSON.stringify(stored), refsOf(stored), awaiting(stored)],
    );
    return stored;
  }

  async get(id: string): Promise<Order | undefined> {
    const { rows } = await this.db.query("SELECT doc FROM shop_orders WHERE id = $1", [id]);
    return rows[0] === undefined ? undefined : toOrder(rows[0]);
  }

  async findByPaymentReference(reference: string): Promise<Order | undefined> {
    const { rows } = await this.db.query("SELECT doc FROM shop_orders WHERE $1 = ANY(payment_refs) LIMIT 1", [
      reference,
    ]);
    return rows[0] === undefined ? undefined : toOrder(rows[0]);
  }

  async listAwaitingPayment(): Promise<Order[]> {
    const { rows } = await this.db.query("SELECT doc FROM shop_orders WHERE awaiting_payment ORDER BY id");
    return rows.map(toOrder);
  }

  async update(id: string, change: (order: Order) => void): Promise<Order | undefined> {
    return this.inTransaction(async (db) => {
      // The row lock makes two webhooks about one order apply one after the other.
      const { rows } = await db.query("SELECT doc FROM shop_orders WHERE id = $1 FOR UPDATE", [id]);
      if (rows[0] === undefined) return undefined;
      const order = toOrder(rows[0]);
      change(order);
      await db.query("UPDATE shop_orders SET doc = $2::jsonb, payment_refs = $3, awaiting_payment = $4 WHERE id = $1", [
        id,
        JSON.stringify(order),
        refsOf(order),
        awaiting(order),
      ]);
      return order;
    });
  }
}
