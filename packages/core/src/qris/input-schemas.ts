import { z } from "zod";
import { integerSchema, knownOrString } from "../http/schema-helpers.js";

/** Smallest QRIS amount, in rupiah. */
export const MIN_QRIS_AMOUNT = 1_000;
/** Largest QRIS amount, in rupiah. */
export const MAX_QRIS_AMOUNT = 100_000_000;

const qrisIdSchema = z.union([
  integerSchema("must be an integer").positive("must be positive"),
  z.string().trim().min(1, "must not be empty"),
]);

/**
 * Input of `generateQris`: `qris_id` (the QR configuration; an integer per the spec, a string id is also accepted),
 * integer `amount` from 1 000 to 100 000 000, `output_type` `string` or `image`, optional `unique_amount` (the
 * service adds a small unique code to the amount; its default is `true`).
 *
 * @example
 * generateQrisInputSchema.parse({ qris_id: 12, amount: 100_000, output_type: "string" });
 */
export const generateQrisInputSchema = z.strictObject({
  qris_id: qrisIdSchema,
  amount: integerSchema("must be an integer of rupiah")
    .min(MIN_QRIS_AMOUNT, `must be at least ${MIN_QRIS_AMOUNT}`)
    .max(MAX_QRIS_AMOUNT, `must be at most ${MAX_QRIS_AMOUNT}`),
  output_type: knownOrString(["string", "image"]),
  unique_amount: z.boolean().optional(),
});
/** Input of `generateQris`. */
export type GenerateQrisInput = z.input<typeof generateQrisInputSchema>;

/**
 * A QRIS payment history id for a path (URL-encoded): a non-empty string or a number.
 *
 * @example
 * qrisHistoryIdSchema.parse("5b0c6a8e-2f7a-4a53-9a55-5d0f1f7c6e11");
 */
export const qrisHistoryIdSchema = z.union([z.string().trim().min(1, "history id is required"), integerSchema()]);

/**
 * Input of `uploadQris`: a display `name` and the QRIS image (`Blob`, `File` or `Uint8Array`; PNG or JPEG up to
 * 5 MB, checked by its bytes when the call runs).
 *
 * @example
 * uploadQrisInputSchema.parse({ name: "Toko Budi", qris_image: pngBytes });
 */
export const uploadQrisInputSchema = z.strictObject({
  name: z.string().trim().min(1, "is required"),
  qris_image: z.unknown(),
});
/** Input of `uploadQris`. */
export interface UploadQrisInput {
  name: string;
  qris_image: Blob | Uint8Array;
}
