/** The cache windows of a quoter, as ages since the provider answered (ms). */
export interface CacheWindows {
  freshMs: number;
  /** End of the stale-while-revalidate window: `freshMs + staleWhileRevalidateMs`. */
  revalidateUntilMs: number;
  /** End of the stale-if-error window: `freshMs + staleIfErrorMs`. */
  ifErrorUntilMs: number;
  maxAgeMs: number;
}

/**
 * What a cached answer of age `ageMs` may be used for: `fresh` (served, no call), `revalidate` (served at once and
 * refreshed in the background), `if_error` (a call is needed; served only if the provider fails or is late), or
 * `expired` (never served). Past `maxAgeMs` an answer is always expired, whatever the other windows say. A negative
 * age (another instance's clock ahead of this one) counts as zero.
 *
 * @example
 * freshnessOf(120_000, { freshMs: 60_000, revalidateUntilMs: 300_000, ifErrorUntilMs: 3_600_000, maxAgeMs: 3_600_000 }); // "revalidate"
 */
export function freshnessOf(ageMs: number, windows: CacheWindows): "fresh" | "revalidate" | "if_error" | "expired" {
  if (ageMs > windows.maxAgeMs) return "expired";
  if (ageMs <= windows.freshMs) return "fresh";
  if (ageMs <= windows.revalidateUntilMs) return "revalidate";
  return ageMs <= windows.ifErrorUntilMs ? "if_error" : "expired";
}
