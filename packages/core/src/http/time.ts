/** A provider timestamp: the parsed instant plus the string exactly as the provider wrote it. */
export interface ProviderTime {
  date: Date;
  raw: string;
}

// Western Indonesia Time: what the providers mean when a timestamp carries no zone.
const WIB_OFFSET_MINUTES = 7 * 60;

const PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

const offsetMinutes = (zone: string | undefined): number => {
  if (zone === undefined) return WIB_OFFSET_MINUTES;
  if (zone.toUpperCase() === "Z") return 0;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || "0"));
};

/**
 * Parses a provider timestamp: ISO 8601 UTC (`2026-05-01T03:00:00Z`), ISO with an offset (`...+07:00`), or
 * `YYYY-MM-DD HH:mm:ss` with no zone, read as Western Indonesia Time (UTC+7). Returns `undefined` when the text is
 * none of these or names an impossible date.
 *
 * @example
 * tryParseProviderTime("2026-05-01 10:00:00")?.date.toISOString(); // "2026-05-01T03:00:00.000Z"
 */
export function tryParseProviderTime(raw: string): ProviderTime | undefined {
  const match = PATTERN.exec(raw.trim());
  if (match === null) return undefined;
  const [, y, mo, d, h = "0", mi = "0", s = "0", fraction = "0", zone] = match;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Math.floor(Number(`0.${fraction}`) * 1000);
  const local = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const check = new Date(local);
  const valid =
    check.getUTCFullYear() === year &&
    check.getUTCMonth() === month - 1 &&
    check.getUTCDate() === day &&
    hour < 24 &&
    minute < 60 &&
    second < 60;
  if (!valid) return undefined;
  return { date: new Date(local - offsetMinutes(zone) * 60_000), raw };
}

/**
 * Like {@link tryParseProviderTime} but throws a `RangeError` naming the accepted formats when `raw` is unreadable.
 *
 * @example
 * parseProviderTime("2026-05-01T10:00:00+07:00").date.toISOString(); // "2026-05-01T03:00:00.000Z"
 */
export function parseProviderTime(raw: string): ProviderTime {
  const parsed = tryParseProviderTime(raw);
  if (parsed === undefined) {
    throw new RangeError(
      `Unreadable provider time ${JSON.stringify(raw.slice(0, 40))}: expected ISO 8601 or "YYYY-MM-DD HH:mm:ss" (UTC+7)`,
    );
  }
  return parsed;
}
