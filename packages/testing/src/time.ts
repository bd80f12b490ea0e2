// Time formats the providers use on the wire.

const WIB_OFFSET_MS = 7 * 60 * 60 * 1000;

/** ISO 8601 UTC with milliseconds dropped, as in the webhook samples: `2026-01-15T03:00:00Z`. */
export function isoUtc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, -5)}Z`;
}

/** `YYYY-MM-DD HH:mm:ss` in Western Indonesia Time (UTC+7) with no zone, as the QR service writes `expiry_time`. */
export function wibDateTime(ms: number): string {
  const iso = new Date(ms + WIB_OFFSET_MS).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** `YYYY-MM-DD` and `HH:mm` in Western Indonesia Time, as waybill manifests write them. */
export function wibDateAndTime(ms: number): { date: string; time: string } {
  const iso = new Date(ms + WIB_OFFSET_MS).toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 16) };
}
