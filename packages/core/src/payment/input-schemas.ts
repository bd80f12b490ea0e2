import { z } from "zod";
import { integerSchema, knownOrString } from "../http/schema-helpers.js";

/** Smallest amount the gateway accepts (written "10.000" in the spec), in rupiah. */
export const MIN_PAYMENT_AMOUNT = 10_000;
/** Shortest `expiry_duration` the gateway accepts, in seconds. */
export const MIN_EXPIRY_DURATION = 3_600;

const httpUrl = z.url({ protocol: /^https?$/, message: "must be an http(s) URL" });

/**
 * One line of an order. Strict: name, integer quantity >= 1, integer price >= 0 (rupiah).
 *
 * @example
 * paymentItemSchema.parse({ name: "Kopi", quantity: 2, price: 25_000 });
 */
export const paymentItemSchema = z.strictObject({
  name: z.string().trim().min(1, "is required"),
  quantity: integerSchema("must be an integer").min(1, "must be at least 1"),
  price: integerSchema("must be an integer of rupiah").min(0, "must not be negative"),
});
/** One line of an order. */
export type PaymentItem = z.infer<typeof paymentItemSchema>;

/**
 * The paying customer: name, valid e-mail, phone.
 *
 * @example
 * paymentCustomerSchema.parse({ name: "Budi", email: "budi@example.id", phone: "081234567890" });
 */
export const paymentCustomerSchema = z.strictObject({
  name: z.string().trim().min(1, "is required"),
  email: z.email("must be a valid e-mail address"),
  phone: z.string().trim().min(1, "is required"),
});
/** The paying customer. */
export type PaymentCustomer = z.infer<typeof paymentCustomerSchema>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/**
 * Input of `createPayment`, validated before anything is sent: amount integer >= 10 000, `expiry_duration` >= 3600,
 * valid e-mail and URL, `callback_api_key` required with `callback_url`, well-formed items, and `channel_code`
 * required for `bank_transfer` (not for `qris`). Unknown fields (e.g. `callback_API_KEY`) are rejected.
 *
 * @example
 * createPaymentInputSchema.parse({
 *   order_id: "INV-1", payment_type: "bank_transfer", channel_code: "BCA", amount: 150_000,
 *   customer: { name: "Budi", email: "budi@example.id", phone: "0812" },
 *   items: [{ name: "Kopi", quantity: 6, price: 25_000 }],
 * });
 */
export const createPaymentInputSchema = z
  .strictObject({
    order_id: z.union([z.string().trim().min(1, "is required"), integerSchema()]),
    payment_type: knownOrString(["bank_transfer", "qris"]),
    channel_code: z.string().trim().min(1, "must not be empty").optional(),
    amount: integerSchema("must be an integer of rupiah").min(
      MIN_PAYMENT_AMOUNT,
      `must be at least ${MIN_PAYMENT_AMOUNT}`,
    ),
    customer: paymentCustomerSchema,
    items: z.array(paymentItemSchema).min(1, "needs at least one item"),
    expiry_duration: integerSchema("must be an integer number of seconds")
      .min(MIN_EXPIRY_DURATION, `must be at least ${MIN_EXPIRY_DURATION} seconds`)
      .optional(),
    callback_url: httpUrl.optional(),
    callback_api_key: z.string().min(1, "must not be empty").optional(),
  })
  // Cross-field rules run even when other fields fail (`when`), so one error lists every problem.
  .refine((input) => !isRecord(input) || input.payment_type !== "bank_transfer" || input.channel_code !== undefined, {
    path: ["channel_code"],
    message: "is required when payment_type is bank_transfer (a bank code from listMethods)",
    when: () => true,
  })
  .refine((input) => !isRecord(input) || input.callback_url === undefined || input.callback_api_key !== undefined, {
    path: ["callback_api_key"],
    message: "is required when callback_url is given",
    when: () => true,
  });
/** Input of `createPayment`. */
export type CreatePaymentInput = z.input<typeof createPaymentInputSchema>;

/**
 * A payment id for a path: a non-empty string (it may contain `/`, it is URL-encoded).
 *
 * @example
 * paymentIdSchema.parse("KPAY-1234/KM/2026");
 */
export const paymentIdSchema = z.string().trim().min(1, "payment id is required");

/**
 * Input of `cancelPayment`. Only a `PENDING` payment can be cancelled.
 *
 * @example
 * cancelPaymentInputSchema.parse({ payment_id: "KPAY-1", reason: "customer changed their mind" });
 */
export const cancelPaymentInputSchema = z.strictObject({
  payment_id: paymentIdSchema,
  reason: z.string().trim().min(1, "must not be empty").optional(),
});
/** Input of `cancelPayment`. */
export type CancelPaymentInput = z.input<typeof cancelPaymentInputSchema>;
