import { ConfigurationError } from "../errors/validation.js";

/**
 * The weight a courier bills for a parcel of `grams`, used only in cache keys: two weights share a cached price
 * when the rule gives them the same billed weight. The parcel's real weight is what the provider is sent.
 *
 * @example
 * const billed: BilledWeight = (grams) => Math.max(1, Math.ceil(grams / 1000)) * 1000;
 */
export type BilledWeight = (grams: number, courier: string) => number;

/**
 * The default rule: every gram counts, so 1,001 g and 1,400 g never share a cached price. The spec publishes no
 * billing rule (only "weight in grams"), and couriers round differently (some round up from the first gram, some
 * forgive up to 300 g over a whole kilogram): a rule the provider does not use would serve a wrong price, and a
 * cache miss only costs a call.
 *
 * @example
 * exactWeight(1_400, "jne"); // 1400
 */
export const exactWeight: BilledWeight = (grams) => grams;

/**
 * A rule for couriers known to bill per started kilogram: the weight rounded up to whole kilograms (at least 1 kg),
 * except that up to `toleranceGrams` over a whole kilogram are forgiven (e.g. 300 for a "1.3 kg counts as 1 kg" rule).
 * With `toleranceGrams: 0`, 1,001 g and 1,400 g share the 2 kg price. Use it only when your couriers bill that way
 * (the fake provider does, with no tolerance).
 *
 * @example
 * const billed = perKilogramWeight({ toleranceGrams: 300 });
 * billed(1_300, "jne"); // 1000
 * billed(1_301, "jne"); // 2000
 */
export function perKilogramWeight(options: { toleranceGrams?: number } = {}): BilledWeight {
  const tolerance = options.toleranceGrams ?? 0;
  if (!Number.isInteger(tolerance) || tolerance < 0 || tolerance >= 1000) {
    throw new ConfigurationError("toleranceGrams", "toleranceGrams must be an integer from 0 to 999");
  }
  return (grams) => {
    const whole = Math.floor(grams / 1000);
    const billed = grams - whole * 1000 > tolerance ? whole + 1 : whole;
    return Math.max(1, billed) * 1000;
  };
}
