// The providers write times three ways (see FIELD-NOTES): ISO 8601 in UTC, ISO 8601 with an offset such as
// `+07:00`, and `YYYY-MM-DD HH:mm:ss` without a zone, which means Western Indonesia Time (UTC+7).

const TIME_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const WIB_OFFSET_MINUTES = 7 * 60;

/**
 * Parses a provider timestamp in any of the three formats the services use; `undefined` when it is none of them.
 * A time without a zone is read as Western Indonesia Time (UTC+7).
 *
 * @example
 * parseWebhookTimestamp("2026-01-02 10:00:00")?.toISOString(); // "2026-01-02T03:00:00.000Z"
 * parseWebhookTimestamp("2026-01-02T03:00:00Z")?.toISOString(); // "2026-01-02T03:00:00.000Z"
 */
export function parseWebhookTimestamp(raw: string): Date | undefined {
  const match = TIME_PATTERN.exec(raw.trim());
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second = "0", fraction = "0", zone] = match;
  const fields = [Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)] as const;
  const local = Date.UTC(...fields, Number(fraction.slice(0, 3).padEnd(3, "0")));
  const check = new Date(local);
  // Date.UTC rolls 2026-02-31 over to March: refuse dates that do not exist.
  if (check.getUTCMonth() !== fields[1] || check.getUTCDate() !== fields[2] || fields[3] > 23 || fields[5] > 59) {
    return undefined;
  }
  if (fields[4] > 59) return undefined;
  return new Date(local - offsetMinutes(zone) * 60_000);
}

function offsetMinutes(zone: string | undefined): number {
  if (zone === undefined) return WIB_OFFSET_MINUTES;
  if (zone === "Z" || zone === "z") return 0;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || "0"));
}
