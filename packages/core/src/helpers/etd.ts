/** Unit of an estimated delivery time. */
export type EtdUnit = "day" | "hour" | "week";

/**
 * An estimated time of delivery, parsed from the free-text `etd` of a cost option.
 * `min`/`max`/`unit` are all `null` when the provider sent nothing (`""`) or text this parser does not understand;
 * `raw` always keeps what the provider sent, so nothing is lost.
 */
export interface ParsedEtd {
  /** Lower bound, or `null` when unknown. */
  min: number | null;
  /** Upper bound (equal to `min` for a single value), or `null` when unknown. */
  max: number | null;
  /** Unit of `min`/`max`; a bare number (`"4"`, `"4-5"`) is in days, as the Pro interface documents. */
  unit: EtdUnit | null;
  /** The provider's text, unchanged (`""` when it sent `null`/nothing). */
  raw: string;
}

const UNIT_WORDS: Readonly<Record<string, EtdUnit>> = {
  d: "day",
  day: "day",
  days: "day",
  hari: "day",
  h: "hour",
  hr: "hour",
  hrs: "hour",
  hour: "hour",
  hours: "hour",
  jam: "hour",
  w: "week",
  week: "week",
  weeks: "week",
  minggu: "week",
};

// A number, an optional range (hyphen, en/em dash or "sd"/"s.d."/"to"), then an optional unit word.
const ETD_PATTERN = /^(\d+(?:\.\d+)?)(?:\s*(?:-|\u2013|\u2014|s\.?\s*d\.?|to)\s*(\d+(?:\.\d+)?))?\s*([a-z]+)?\.?$/i;

/**
 * Parses an `etd` text such as `"2-3 day"`, `"1-2 HARI"`, `"4"`, `"1 - 2 days"` or `"3 jam"`.
 * Never throws: provider data that cannot be read gives `min`, `max` and `unit` as `null` with `raw` kept.
 * A reversed range (`"5-3"`) is reordered so that `min <= max` always holds.
 *
 * @example
 * parseEtd("2-3 day");  // { min: 2, max: 3, unit: "day", raw: "2-3 day" }
 * parseEtd("3 jam");    // { min: 3, max: 3, unit: "hour", raw: "3 jam" }
 * parseEtd("");         // { min: null, max: null, unit: null, raw: "" }
 */
export function parseEtd(raw: string | number | null | undefined): ParsedEtd {
  const text = raw === null || raw === undefined ? "" : String(raw);
  const unknown: ParsedEtd = { min: null, max: null, unit: null, raw: text };
  const match = ETD_PATTERN.exec(text.trim());
  if (!match) return unknown;
  const [, first, second, word] = match;
  const unit = word === undefined ? "day" : UNIT_WORDS[word.toLowerCase()];
  if (unit === undefined) return unknown;
  const a = Number(first);
  const b = second === undefined ? a : Number(second);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return unknown;
  return { min: Math.min(a, b), max: Math.max(a, b), unit, raw: text };
}
