export type { PaymentGatewayClientOptions, PaymentOperation } from "./client.js";
export { PAYMENT_PATHS, PaymentGatewayClient } from "./client.js";
export type { CancelPaymentInput, CreatePaymentInput, PaymentCustomer, PaymentItem } from "./input-schemas.js";
export {
  cancelPaymentInputSchema,
  createPaymentInputSchema,
  MIN_EXPIRY_DURATION,
  MIN_PAYMENT_AMOUNT,
  paymentCustomerSchema,
  paymentIdSchema,
  paymentItemSchema,
} from "./input-schemas.js";
export type { CreatedPayment, PaymentState } from "./required-results.js";
export type { CancelPaymentResult, PaymentMethod, PaymentRecord, PaymentStatus } from "./response-schemas.js";
export {
  cancelPaymentResultSchema,
  PAYMENT_STATUSES,
  paymentMethodSchema,
  paymentRecordSchema,
} from "./response-schemas.js";
