import { z } from "zod";
import { tryParseProviderTime } from "./time.js";

/**
 * An open enum for responses: the known literals, or any other string (a new provider value must not throw).
 * The TS type is `Known | (string & {})`, so editors still suggest the known values.
 *
 * @example
 * const status = openEnum(["PENDING", "PAID"]); status.parse("REFUNDED"); // "REFUNDED"
 */
export function openEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.union([z.enum(values), z.string()]) as unknown as z.ZodType<T[number] | (string & {})>;
}

/**
 * An input enumeration from the spec, open: the known values autocomplete, and any other non-empty string is sent
 * for the provider to judge (it may accept values the spec does not list). Only an empty value is refused, as it
 * can never succeed.
 *
 * @example
 * knownOrString(["string", "image"]).parse("svg"); // "svg", sent as is
 */
export function knownOrString<const T extends readonly [string, ...string[]]>(values: T) {
  return z.union([z.enum(values), z.string().trim().min(1, "must not be empty")]) as unknown as z.ZodType<
    T[number] | (string & {})
  >;
}

/**
 * A provider identifier: number or string (numeric strings, UUIDs, `KPAY-1/KM/2026`), kept as sent.
 *
 * @example
 * providerIdSchema.parse(12); providerIdSchema.parse("f47ac10b-58cc-4372-a567-0e02b2c3d479");
 */
export const providerIdSchema = z.union([z.number(), z.string()]);

/**
 * An estimated delivery time as the provider wrote it (`"2-3 day"`, `"1-2"`, `"HARI"`); a missing or null one reads
 * as `""`, which `parseEtd` reports as unknown.
 *
 * @example
 * etdTextSchema.parse(null); // ""
 */
export const etdTextSchema = z
  .string()
  .nullish()
  .transform((value) => value ?? "");

/**
 * A number that may arrive as a numeric string (`"10000"`): normalised to a number.
 *
 * @example
 * lenientNumberSchema.parse("10000"); // 10000
 */
export const lenientNumberSchema = z.union([
  z.number(),
  z
    .string()
    .trim()
    .regex(/^-?\d+(\.\d+)?$/)
    .transform(Number),
]);

/**
 * Parses a provider time string (see `tryParseProviderTime`) to a `Date`; `undefined` when absent or unreadable.
 * Schemas keep the raw string in its wire field and add the parsed `Date` next to it.
 *
 * @example
 * parsedTime("2026-05-01 10:15:00")?.toISOString(); // "2026-05-01T03:15:00.000Z"
 */
export const parsedTime = (raw: unknown): Date | undefined =>
  typeof raw === "string" ? tryParseProviderTime(raw)?.date : undefined;

/**
 * A strict integer for requests. Unlike `z.number().int()`, a fractional value does not stop the other checks,
 * so one `RequestValidationError` lists every problem (e.g. both "must be an integer" and "must be at least").
 *
 * @example
 * integerSchema("must be an integer of rupiah").min(10_000).parse(150_000);
 */
export const integerSchema = (message = "must be an integer") => z.number().check(z.refine(Number.isInteger, message));

/**
 * Adds a parsed `Date` next to a raw provider time field, as `<field>_date`, keeping every other field (unknown
 * ones included) and the raw string.
 *
 * @example
 * withParsedTime({ expired_at: "2026-05-01 10:00:00", x: 1 }, "expired_at"); // { ..., expired_at_date: Date }
 */
export function withParsedTime<R extends object, F extends string & keyof R>(
  record: R,
  field: F,
): R & { [K in `${F}_date`]: Date | undefined } {
  const parsed = parsedTime(record[field]);
  return { ...record, [`${field}_date`]: parsed } as R & { [K in `${F}_date`]: Date | undefined };
}
