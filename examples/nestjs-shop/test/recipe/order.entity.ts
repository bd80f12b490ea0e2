// order.entity.ts
import { Column, Entity, PrimaryGeneratedColumn } from "typeorm";

export type OrderStatus = "awaiting_payment" | "paid" | "expired";

@Entity("orders")
export class Order {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column("integer")
  total!: number;

  /** What the customer is charged: the total plus the QR service's unique code. */
  @Column("integer", { name: "amount_due" })
  amountDue!: number;

  @Column("varchar", { name: "qris_history_id", length: 64, unique: true })
  qrisHistoryId!: string;

  @Column("varchar", { length: 20, default: "awaiting_payment" })
  status!: OrderStatus;
}
