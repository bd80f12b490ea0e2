import type { ParsedEtd } from "@kirimbayar/core";

/**
 * Where an order is in its life. `payment_review` means money arrived that does not match what was quoted, so a
 * person has to look before the parcel leaves.
 */
export type OrderStatus =
  | "awaiting_payment"
  | "paid"
  | "payment_review"
  | "expired"
  | "cancelled"
  | "shipped"
  | "delivered";

/** One line of the cart. `price` in rupiah, `weight` in grams, both per unit. */
export interface OrderItem {
  name: string;
  quantity: number;
  price: number;
  weight: number;
}

/** The buyer, as the payment gateway needs them for a virtual account. */
export interface Customer {
  name: string;
  email: string;
  phone: string;
}

/** The courier service chosen for an order, priced by the shipping service at order time. */
export interface ChosenShipping {
  courier_code: string;
  courier_name: string;
  service: string;
  cost: number;
  etd: ParsedEtd;
  destination_id: number;
}

/** State of one payment attempt of an order. */
export type PaymentState = "pending" | "paid" | "expired" | "cancelled";

/** A QRIS payment: `final_amount` (with the unique code) is what the customer must pay and what is reconciled. */
export interface QrisPayment {
  method: "qris";
  state: PaymentState;
  history_id: string;
  qris_string: string;
  original_amount: number;
  final_amount: number;
  expires_at: string | undefined;
}

/** A virtual-account payment through the payment gateway. */
export interface VaPayment {
  method: "va";
  state: PaymentState;
  payment_id: string;
  bank_code: string;
  va_number: string | undefined;
  amount: number;
  expires_at: string | undefined;
}

/** Something that happened to an order: what the shop did, and every webhook it processed. */
export interface OrderEvent {
  at: string;
  source: "shop" | "qris" | "payment" | "orders";
  type: string;
  detail: string;
}

/** A shop order. Its `id` is also the `order_no` the shipping service reports status changes for. */
export interface Order {
  id: string;
  status: OrderStatus;
  customer: Customer;
  items: OrderItem[];
  /** Sum of the items, in rupiah. */
  subtotal: number;
  shipping: ChosenShipping;
  /** Items plus shipping, in rupiah. */
  total: number;
  /** Total weight in grams. */
  weight: number;
  payments: (QrisPayment | VaPayment)[];
  /** Waybill number, once the courier has the parcel. */
  cnote: string | undefined;
  created_at: string;
  events: OrderEvent[];
}
