import { z } from "zod";
import { lenientNumberSchema, openEnum, providerIdSchema, withParsedTime } from "../http/schema-helpers.js";

/** Known payment states; the enum is open. */
export const PAYMENT_STATUSES = ["PENDING", "PAID", "EXPIRED", "CANCELED"] as const;
/** A payment state: one of {@link PAYMENT_STATUSES} or a value the gateway adds later. */
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number] | (string & {});

/**
 * One payment method from `listMethods` (`payment_type` `va` or `qris`; `bank_code` empty for QRIS).
 *
 * @example
 * paymentMethodSchema.parse({ payment_type: "va", display_name: "BCA Virtual Account", bank_code: "BCA" });
 */
export const paymentMethodSchema = z.looseObject({
  payment_type: openEnum(["va", "qris"]).optional(),
  display_name: z.string().nullish(),
  bank_code: z.string().nullish(),
  logo_url: z.string().nullish(),
  min_amount: lenientNumberSchema.nullish(),
  max_amount: lenientNumberSchema.nullish(),
  currency: z.string().nullish(),
});
/** One payment method. */
export type PaymentMethod = z.infer<typeof paymentMethodSchema>;

/**
 * A payment transaction as returned by create and status. Every field is optional (the response is not in the
 * spec); `status` is an open enum; `expired_at_date` is `expired_at` parsed (ISO or `YYYY-MM-DD HH:mm:ss` UTC+7).
 *
 * @example
 * paymentRecordSchema.parse({ payment_id: "KPAY-1", status: "PENDING", expired_at: "2026-05-01 10:00:00" }).expired_at_date;
 */
export const paymentRecordSchema = z
  .looseObject({
    payment_id: providerIdSchema.optional(),
    order_id: providerIdSchema.optional(),
    payment_url: z.string().nullish(),
    va_number: z.string().nullish(),
    qr_string: z.string().nullish(),
    bank_code: z.string().nullish(),
    amount: lenientNumberSchema.nullish(),
    status: openEnum(PAYMENT_STATUSES).optional(),
    expired_at: z.string().nullish(),
  })
  .transform((record) => withParsedTime(record, "expired_at"));
/** A payment transaction. */
export type PaymentRecord = z.infer<typeof paymentRecordSchema>;

/**
 * Data of `cancelPayment`: the payment record when the gateway returns one, otherwise `null`.
 *
 * @example
 * cancelPaymentResultSchema.parse(null); // null
 */
export const cancelPaymentResultSchema = z.preprocess(
  (value) => (typeof value === "object" && value !== null && !Array.isArray(value) ? value : null),
  paymentRecordSchema.nullable(),
);
/** Data of `cancelPayment`. */
export type CancelPaymentResult = z.infer<typeof cancelPaymentResultSchema>;
