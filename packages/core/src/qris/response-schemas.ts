import { z } from "zod";
import { lenientNumberSchema, openEnum, providerIdSchema, withParsedTime } from "../http/schema-helpers.js";

/** Known QR payment states (lower case, British spelling); the enum is open. */
export const QRIS_PAYMENT_STATUSES = ["unpaid", "paid", "expired", "cancelled"] as const;
/** A QR payment state. */
export type QrisPaymentStatus = (typeof QRIS_PAYMENT_STATUSES)[number] | (string & {});

/**
 * Data of `generateQris`. `expiry_time` stays exactly as sent; `expiry_time_date` is it parsed (`YYYY-MM-DD HH:mm:ss` in
 * UTC+7, ISO UTC or ISO with offset). Reconcile payments against `final_amount` (it includes the unique code).
 *
 * @example
 * generatedQrisSchema.parse({ history_id: "h1", qris_string: "000201...", final_amount: 100_001,
 *   payment_status: "unpaid", expiry_time: "2026-05-01 10:15:00" }).expiry_time_date;
 */
export const generatedQrisSchema = z
  .looseObject({
    history_id: providerIdSchema,
    qris_string: z.string().nullish(),
    original_amount: lenientNumberSchema.nullish(),
    final_amount: lenientNumberSchema.nullish(),
    payment_status: openEnum(QRIS_PAYMENT_STATUSES).optional(),
    expiry_time: z.string().nullish(),
  })
  .transform((record) => withParsedTime(record, "expiry_time"));
/** `generateQris` data as read, before the client completes it into `GeneratedQris`. */
export type GeneratedQrisRecord = z.infer<typeof generatedQrisSchema>;

/**
 * Data of `getQrisPaymentStatus` (not in the spec: every field optional). `status` is accepted as an alias of
 * `payment_status`; `history_id` and `qris_history_id` both accepted.
 *
 * @example
 * qrisPaymentStatusSchema.parse({ history_id: "h1", status: "paid", paid_at: "2026-05-01T03:05:00Z" }).payment_status; // "paid"
 */
export const qrisPaymentStatusSchema = z
  .looseObject({
    history_id: providerIdSchema.optional(),
    qris_history_id: providerIdSchema.optional(),
    payment_status: openEnum(QRIS_PAYMENT_STATUSES).optional(),
    status: z.string().optional(),
    amount: lenientNumberSchema.nullish(),
    original_amount: lenientNumberSchema.nullish(),
    final_amount: lenientNumberSchema.nullish(),
    paid_at: z.string().nullish(),
    expiry_time: z.string().nullish(),
  })
  .transform((record) =>
    withParsedTime(
      withParsedTime(
        {
          ...record,
          history_id: record.history_id ?? record.qris_history_id,
          payment_status: record.payment_status ?? record.status,
        },
        "paid_at",
      ),
      "expiry_time",
    ),
  );
/** `getQrisPaymentStatus` data as read, before the client completes it into `QrisPaymentState`. */
export type QrisPaymentStatusRecord = z.infer<typeof qrisPaymentStatusSchema>;

/**
 * Data of `uploadQris`: the new `qris_id` to pass to `generateQris`.
 *
 * @example
 * uploadedQrisSchema.parse({ qris_id: 7, name: "Toko Budi" }).qris_id; // 7
 */
export const uploadedQrisSchema = z.looseObject({
  qris_id: providerIdSchema,
  name: z.string().nullish(),
});
/** Data of `uploadQris`. */
export type UploadedQris = z.infer<typeof uploadedQrisSchema>;
