import type { ApiResponse } from "../http/api-response.js";
import { RequiredFields } from "../http/required-fields.js";
import type { CreatePaymentInput } from "./input-schemas.js";
import type { PaymentRecord, PaymentStatus } from "./response-schemas.js";

/**
 * Data of `createPayment` with what a shop relies on always there: `payment_id`, `order_id`, `amount`, `status`,
 * and at least one way to pay (`va_number`, `payment_url` or `qr_string`, checked at runtime: which one depends on
 * the payment type).
 */
// Intersections, not Omit: the record is a loose object, whose index signature would make Omit drop every key.
export type CreatedPayment = PaymentRecord & {
  payment_id: string | number;
  order_id: string | number;
  amount: number;
  status: PaymentStatus;
};

/** Data of `getPaymentStatus` with `payment_id` and `status` always there. */
export type PaymentState = PaymentRecord & {
  payment_id: string | number;
  status: PaymentStatus;
};

/**
 * Completes a `createPayment` answer. Derived when absent: `order_id` and `amount` (what was sent), `status`
 * (`PENDING`: a new payment is unpaid). A missing `payment_id`, or no `va_number`, `payment_url` or `qr_string`
 * at all, throws a `ResponseShapeError`: the payment exists but the shop could neither track it nor show how to pay.
 */
export function completeCreatedPayment(
  response: ApiResponse<PaymentRecord>,
  input: Pick<CreatePaymentInput, "order_id" | "amount">,
): ApiResponse<CreatedPayment> {
  const data = response.data;
  const fields = new RequiredFields();
  const completed = {
    ...data,
    payment_id: fields.take("payment_id", data.payment_id),
    order_id: fields.take("order_id", data.order_id, () => input.order_id),
    amount: fields.take("amount", data.amount, () => input.amount),
    status: fields.take<PaymentStatus>("status", data.status, () => "PENDING"),
  };
  fields.expect("va_number|payment_url|qr_string", Boolean(data.va_number || data.payment_url || data.qr_string));
  fields.check(response, "createPayment");
  return { ...response, data: completed };
}

/**
 * Completes a `getPaymentStatus` answer: `payment_id` is the one asked about when absent; a missing `status`
 * throws a `ResponseShapeError` (no rule can tell whether the payment was made).
 */
export function completePaymentState(
  response: ApiResponse<PaymentRecord>,
  paymentId: string,
): ApiResponse<PaymentState> {
  const fields = new RequiredFields();
  const completed = {
    ...response.data,
    payment_id: fields.take("payment_id", response.data.payment_id, () => paymentId),
    status: fields.take("status", response.data.status),
  };
  fields.check(response, "getPaymentStatus");
  return { ...response, data: completed };
}
