import { z } from "zod";
import { CourierCodeError, joinCouriers } from "../helpers/couriers.js";
import { lenientNumberSchema, providerIdSchema } from "../http/schema-helpers.js";

/**
 * An id as providers send it: a number or a string (numeric strings, UUIDs), kept as sent.
 *
 * @example
 * idSchema.parse("31555"); // "31555"
 */
export const idSchema = providerIdSchema;
/** An id read from a response: `number | string`. */
export type Id = z.infer<typeof idSchema>;

/**
 * Free text that some revisions send as a number (postal codes, ids in labels), normalised to a string.
 *
 * @example
 * textSchema.parse(40115); // "40115"
 */
export const textSchema = z.union([z.string(), z.number().transform(String)]);

/**
 * An amount read from a response: a number or a numeric string, normalised to a number.
 *
 * @example
 * amountSchema.parse("18000"); // 18000
 */
export const amountSchema = lenientNumberSchema;

/**
 * A `true`/`false` flag that some revisions send as a string or 0/1, normalised to a boolean.
 *
 * @example
 * flagSchema.parse("true"); // true
 */
export const flagSchema = z.union([
  z.boolean(),
  z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1"),
  z.union([z.literal(0), z.literal(1)]).transform((v) => v === 1),
]);

/**
 * An id to SEND: a positive integer or a non-empty string without whitespace (numeric ids read back as strings
 * are accepted as they are).
 *
 * @example
 * idInputSchema.parse("501"); // "501"
 */
export const idInputSchema = z.union([
  z.int().positive(),
  z.string().trim().min(1, "must not be empty").regex(/^\S*$/, "must not contain whitespace"),
]);
/** An id accepted in a request. */
export type IdInput = z.input<typeof idInputSchema>;

/**
 * Weight to SEND: a positive integer number of grams (1 kg = 1000).
 *
 * @example
 * weightSchema.parse(1700); // 1700
 */
export const weightSchema = z.int("weight must be an integer number of grams").positive("weight must be above 0 grams");

/**
 * One courier code or a list of them, sent joined with `:` (see `joinCouriers`).
 *
 * @example
 * courierListSchema.parse(["jne", "pos"]); // "jne:pos"
 */
export const courierListSchema = z.union([z.string(), z.array(z.string())]).transform((value, ctx) => {
  try {
    return joinCouriers(Array.isArray(value) ? value : value.split(":"));
  } catch (error) {
    if (!(error instanceof CourierCodeError)) throw error;
    ctx.addIssue({
      code: "custom",
      message: error.message,
      path: Array.isArray(value) && error.reason !== "no_codes" ? [error.index] : [],
    });
    return z.NEVER;
  }
});

/**
 * Exactly one courier code (trimmed and lower-cased), e.g. for tracking.
 *
 * @example
 * singleCourierSchema.parse(" JNE "); // "jne"
 */
export const singleCourierSchema = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, "courier is required")
  .regex(/^[^\s:]+$/, "one courier code only (no ':' and no whitespace)");

/**
 * Fields of every route cost form (current, Pro international, Starter): ids of both ends, grams and courier codes.
 * Spread into a `z.strictObject` and add the operation's own fields.
 *
 * @example
 * z.strictObject({ ...routeCostFields, price: z.enum(["lowest", "highest"]).optional() });
 */
export const routeCostFields = {
  origin: idInputSchema,
  destination: idInputSchema,
  /** Grams, a positive integer. */
  weight: weightSchema,
  /** One code, a `:`-joined string or an array; sent joined with `:`. */
  courier: courierListSchema,
};
