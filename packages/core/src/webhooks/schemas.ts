import { z } from "zod";

// Webhook payloads are read tolerantly (FIELD-NOTES): unknown fields pass through (loose objects), statuses and
// event names are open, ids may be numbers or strings, and documented aliases are accepted. Only what the SDK
// relies on (ids for deduplication, integer amounts) is required.

/** An identifier the providers send either as a number or as a (numeric or UUID) string. */
export const webhookIdSchema = z.union([z.string().min(1), z.number()]);

/** Money in integer rupiah. */
export const rupiahAmountSchema = z.number().int().nonnegative();

/** An open set of strings: the known values are listed for editors, any other non-empty string is accepted. */
type Open<T extends string> = T | (string & {});

const timeTextSchema = z.string();

// Revisions of the QR service name the id `history_id`; it is copied to `qris_history_id` (the spec's name), and
// the original field is kept.
function withHistoryIdAlias(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const data = value as Record<string, unknown>;
  if (data.qris_history_id !== undefined || data.history_id === undefined) return value;
  return { ...data, qris_history_id: data.history_id };
}

const qrisPaymentSuccessDataSchema = z.preprocess(
  withHistoryIdAlias,
  z.looseObject({
    qris_history_id: webhookIdSchema,
    qris_id: webhookIdSchema.optional(),
    amount: rupiahAmountSchema,
    original_amount: rupiahAmountSchema.optional(),
    status: z.string().optional(),
    paid_at: timeTextSchema.optional(),
    payment_method: z.string().optional(),
    payment_provider: z.string().optional(),
    created_at: timeTextSchema.optional(),
  }),
);

const qrisPaymentExpiredDataSchema = z.preprocess(
  withHistoryIdAlias,
  z.looseObject({
    qris_history_id: webhookIdSchema,
    qris_id: webhookIdSchema.optional(),
    amount: rupiahAmountSchema.optional(),
    status: z.string().optional(),
    created_at: timeTextSchema.optional(),
    expired_at: timeTextSchema.optional(),
  }),
);

const qrisUnknownDataSchema = z.preprocess(
  withHistoryIdAlias,
  z.looseObject({ qris_history_id: webhookIdSchema.optional() }),
);

/**
 * `payment.success` from the QR payment service. `data.qris_history_id` is filled from `data.history_id` when a
 * revision of the service sends that name instead. `data.amount` includes the unique code the service adds.
 *
 * @example
 * qrisPaymentSuccessEventSchema.parse(JSON.parse(body)).data.qris_history_id;
 */
export const qrisPaymentSuccessEventSchema = z.looseObject({
  event: z.literal("payment.success"),
  timestamp: timeTextSchema,
  data: qrisPaymentSuccessDataSchema,
});

/**
 * `payment.expired` from the QR payment service (the code expired unpaid).
 *
 * @example
 * qrisPaymentExpiredEventSchema.parse(JSON.parse(body)).data.expired_at;
 */
export const qrisPaymentExpiredEventSchema = z.looseObject({
  event: z.literal("payment.expired"),
  timestamp: timeTextSchema,
  data: qrisPaymentExpiredDataSchema,
});

/** Event names of the QR service the SDK knows; any other name is read with {@link qrisUnknownEventSchema}. */
export const QRIS_KNOWN_EVENTS = ["payment.success", "payment.expired"] as const;

/**
 * Any QR service event the SDK does not know yet: the envelope is checked, `data` is kept as sent.
 *
 * @example
 * qrisUnknownEventSchema.parse({ event: "payment.refunded", timestamp: "2026-01-01T00:00:00Z", data: {} });
 */
export const qrisUnknownEventSchema = z.looseObject({
  event: z
    .string()
    .min(1)
    .refine((name) => !(QRIS_KNOWN_EVENTS as readonly string[]).includes(name), {
      message: "a known event name whose payload does not match its schema",
    }),
  timestamp: timeTextSchema,
  data: qrisUnknownDataSchema.optional(),
});

// Marked pure: the receiver reads the three schemas by event name and never this union, so a bundle that does not
// import it drops it (zod calls are not known to be free of side effects).
/**
 * Every QR service webhook: `payment.success`, `payment.expired`, or an event added later (open fallback). A
 * known event name with an invalid payload is rejected, never read as an unknown event.
 *
 * @example
 * const event = qrisWebhookEventSchema.parse(JSON.parse(body));
 * if (event.event === "payment.success") markPaid(event.data.qris_history_id);
 */
export const qrisWebhookEventSchema = /* @__PURE__ */ z.union([
  qrisPaymentSuccessEventSchema,
  qrisPaymentExpiredEventSchema,
  qrisUnknownEventSchema,
]);

/** A parsed `payment.success` QR event. */
export type QrisPaymentSuccessEvent = z.output<typeof qrisPaymentSuccessEventSchema>;
/** A parsed `payment.expired` QR event. */
export type QrisPaymentExpiredEvent = z.output<typeof qrisPaymentExpiredEventSchema>;
/** A parsed QR event whose name the SDK does not know. */
export type QrisUnknownEvent = z.output<typeof qrisUnknownEventSchema>;
/** Any parsed QR service webhook. */
export type QrisWebhookEvent = QrisPaymentSuccessEvent | QrisPaymentExpiredEvent | QrisUnknownEvent;

/** Payment gateway transaction states seen so far (upper case, US spelling); the set is open. */
export type PaymentCallbackStatus = Open<"PENDING" | "PAID" | "EXPIRED" | "CANCELED">;

// The callback body is not published: amounts may come as integer text, which is read as a number.
const lenientAmountSchema = z.union([
  rupiahAmountSchema,
  z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number),
]);

/**
 * The payment gateway's callback to your `callback_url`. Its body is not published, so every field is optional
 * and unknown fields are kept; the raw bytes are on `ctx.rawBody`.
 *
 * @example
 * const callback = paymentCallbackSchema.parse(JSON.parse(body));
 * if (callback.status === "PAID") markPaid(callback.payment_id);
 */
export const paymentCallbackSchema = z.looseObject({
  payment_id: webhookIdSchema.optional(),
  order_id: webhookIdSchema.optional(),
  status: z.string().optional() as z.ZodOptional<z.ZodType<PaymentCallbackStatus>>,
  amount: lenientAmountSchema.optional(),
});

/** A parsed payment gateway callback. */
export type PaymentCallback = z.output<typeof paymentCallbackSchema>;

/** Delivery statuses of the order service seen so far; the set is open. */
export type OrderStatus = Open<"Diajukan" | "Dijemput" | "Dikirim" | "Dibatalkan" | "Selesai">;

/**
 * The order service's status change `{ order_no, cnote, status }`; the status set is open and any other
 * fields (a timestamp, metadata) are kept.
 *
 * @example
 * const change = orderStatusWebhookSchema.parse(JSON.parse(body));
 * if (change.status === "Dikirim") notifyShipped(change.order_no, change.cnote);
 */
export const orderStatusWebhookSchema = z.looseObject({
  order_no: webhookIdSchema,
  cnote: webhookIdSchema,
  status: z.string().trim().min(1) as z.ZodType<OrderStatus>,
});

/** A parsed order status webhook. */
export type OrderStatusWebhook = z.output<typeof orderStatusWebhookSchema>;
