// Time formats the providers use on the wire.

const WIB_OFFSET_MS = 7 * 60 * 60 * 1000;

// The fake's manual clock stands still between advances, so one test formats the same instant again and again (a
// code's creation, its payment, the event's timestamp), and every fake starts at the same instant: the last
// instant each format was given is kept. `Date#toISOString` costs about a microsecond on Node 20.
let lastIso = { ms: Number.NaN, text: "" };
let lastWib = { ms: Number.NaN, text: "" };

/** ISO 8601 UTC with milliseconds dropped, as in the webhook samples: `2026-01-15T03:00:00Z`. */
export function isoUtc(ms: number): string {
  if (ms !== lastIso.ms) lastIso = { ms, text: `${new Date(ms).toISOString().slice(0, -5)}Z` };
  return lastIso.text;
}

/** `YYYY-MM-DD HH:mm:ss` in Western Indonesia Time (UTC+7) with no zone, as the QR service writes `expiry_time`. */
export function wibDateTime(ms: number): string {
  if (ms !== lastWib.ms) {
    const iso = new Date(ms + WIB_OFFSET_MS).toISOString();
    lastWib = { ms, text: `${iso.slice(0, 10)} ${iso.slice(11, 19)}` };
  }
  return lastWib.text;
}

/** `YYYY-MM-DD` and `HH:mm` in Western Indonesia Time, as waybill manifests write them. */
export function wibDateAndTime(ms: number): { date: string; time: string } {
  const iso = new Date(ms + WIB_OFFSET_MS).toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 16) };
}
