import type { Order } from "@kirimbayar/example-shop-domain";
import { EntitySchema } from "typeorm";

/** A stored order: the order document, and whether a payment of it is still pending (what reconciliation asks). */
export interface OrderRow {
  id: string;
  doc: Order;
  awaitingPayment: boolean;
}

/** A payment reference (QRIS `history_id` or gateway `payment_id`) and the order it pays. */
export interface PaymentReferenceRow {
  reference: string;
  orderId: string;
}

/** The last order number handed out (one row). */
export interface OrderCounterRow {
  name: string;
  value: number;
}

// Entity schemas rather than decorated classes: the same definitions serve PostgreSQL and MySQL/MariaDB, and the
// column types are spelled once. `simple-json` is text on both, so the schema needs nothing engine-specific.
export const OrderEntity = new EntitySchema<OrderRow>({
  name: "ShopOrder",
  tableName: "shop_orders",
  columns: {
    id: { type: String, length: 32, primary: true },
    doc: { type: "simple-json" },
    awaitingPayment: { type: Boolean, name: "awaiting_payment" },
  },
  indices: [{ name: "shop_orders_awaiting_payment", columns: ["awaitingPayment"] }],
});

export const PaymentReferenceEntity = new EntitySchema<PaymentReferenceRow>({
  name: "ShopPaymentReference",
  tableName: "shop_payment_references",
  columns: {
    reference: { type: String, length: 191, primary: true },
    orderId: { type: String, length: 32, name: "order_id" },
  },
});

export const OrderCounterEntity = new EntitySchema<OrderCounterRow>({
  name: "ShopOrderCounter",
  tableName: "shop_order_counter",
  columns: {
    name: { type: String, length: 32, primary: true },
    value: { type: Number },
  },
});

/** Every entity of the shop's database. */
export const SHOP_ENTITIES = [OrderEntity, PaymentReferenceEntity, OrderCounterEntity];
