import { KirimbayarError } from "../errors/base.js";

/**
 * Courier codes the current shipping interface (`/api/v1`) documents for cost calculation.
 *
 * @example
 * COURIER_CODES.includes("jne"); // true
 */
export const COURIER_CODES = [
  "jne",
  "sicepat",
  "ide",
  "sap",
  "jnt",
  "ninja",
  "tiki",
  "lion",
  "anteraja",
  "pos",
  "ncs",
  "rex",
  "rpx",
  "sentral",
  "star",
  "wahana",
  "dse",
] as const;

/**
 * Courier codes known to work with the Pro interface's waybill tracking (`POST /api/waybill`): the spec's list plus
 * `jne`, which the provider's own example tracks. Known, not closed: `trackWaybill` sends any code.
 *
 * @example
 * PRO_WAYBILL_COURIER_CODES.includes("jet"); // true
 */
export const PRO_WAYBILL_COURIER_CODES = [
  "jne",
  "pos",
  "wahana",
  "jnt",
  "sap",
  "sicepat",
  "jet",
  "dse",
  "first",
  "ninja",
  "lion",
  "idl",
  "rex",
  "ide",
  "sentral",
  "anteraja",
  "jtl",
  "star",
] as const;

/**
 * The only couriers the free Starter account can price.
 *
 * @example
 * STARTER_COURIER_CODES; // ["jne", "pos", "tiki"]
 */
export const STARTER_COURIER_CODES = ["jne", "pos", "tiki"] as const;

/** A courier code the spec lists for the current interface. */
export type KnownCourierCode = (typeof COURIER_CODES)[number];
/** A courier code the Pro waybill endpoint accepts. */
export type ProWaybillCourierCode = (typeof PRO_WAYBILL_COURIER_CODES)[number];
/** A courier code the Starter account accepts. */
export type StarterCourierCode = (typeof STARTER_COURIER_CODES)[number];

/**
 * A courier code: the known ones autocomplete, any other string is still accepted because providers add couriers
 * (and answer with display codes such as `J&T`) without notice.
 *
 * @example
 * const courier: CourierCode = "sicepat";
 * const newcomer: CourierCode = "paxel";
 */
export type CourierCode = KnownCourierCode | ProWaybillCourierCode | (string & {});

/**
 * Thrown by {@link joinCouriers} / {@link splitCouriers} when a code cannot be sent as part of a `:`-joined list.
 *
 * @example
 * try { joinCouriers(["jne", ""]) } catch (e) { if (e instanceof CourierCodeError) console.log(e.index, e.reason) }
 */
export class CourierCodeError extends KirimbayarError {
  /** Position of the offending code in the input list. */
  readonly index: number;
  /** Why it was refused. */
  readonly reason: "empty" | "contains_separator" | "contains_whitespace" | "no_codes";

  constructor(index: number, reason: CourierCodeError["reason"]) {
    const text = {
      empty: "is empty",
      contains_separator: 'contains ":", the separator of a courier list',
      contains_whitespace: "contains whitespace",
      no_codes: "is missing: give at least one courier code",
    }[reason];
    super(reason === "no_codes" ? `Courier list ${text}` : `Courier code at index ${index} ${text}`, {
      code: "invalid_courier_code",
    });
    this.index = index;
    this.reason = reason;
  }
}

/** Trims and lower-cases one code, or says why it cannot be part of a courier list. */
function normaliseCourierCode(raw: string, index: number): string {
  const code = raw.trim().toLowerCase();
  if (code === "") throw new CourierCodeError(index, "empty");
  if (code.includes(":")) throw new CourierCodeError(index, "contains_separator");
  if (/\s/.test(code)) throw new CourierCodeError(index, "contains_whitespace");
  return code;
}

/**
 * Joins courier codes into the `:`-separated form the cost endpoints take: trimmed, lower-cased, duplicates dropped
 * (first occurrence wins, order kept).
 *
 * @throws {CourierCodeError} when the list is empty or a code is empty, contains `:` or inner whitespace.
 * @example
 * joinCouriers(["JNE", " pos", "tiki", "jne"]); // "jne:pos:tiki"
 */
export function joinCouriers(codes: readonly CourierCode[]): string {
  if (codes.length === 0) throw new CourierCodeError(0, "no_codes");
  const unique = new Set<string>();
  codes.forEach((raw, index) => {
    unique.add(normaliseCourierCode(raw, index));
  });
  return [...unique].join(":");
}

/**
 * Splits a `:`-joined courier list back into codes, normalised the same way as {@link joinCouriers}.
 *
 * @throws {CourierCodeError} when the list is empty or one segment is empty or contains whitespace.
 * @example
 * splitCouriers("jne:POS:tiki"); // ["jne", "pos", "tiki"]
 */
export function splitCouriers(joined: string): CourierCode[] {
  if (joined.trim() === "") throw new CourierCodeError(0, "no_codes");
  const unique = new Set<string>();
  joined.split(":").forEach((raw, index) => {
    unique.add(normaliseCourierCode(raw, index));
  });
  return [...unique];
}

/**
 * Whether `code` is one of the given known codes (case-insensitive, surrounding whitespace ignored).
 *
 * @example
 * isCourierIn("JNE", STARTER_COURIER_CODES); // true
 */
export function isCourierIn(code: string, known: readonly string[]): boolean {
  return known.includes(code.trim().toLowerCase());
}
