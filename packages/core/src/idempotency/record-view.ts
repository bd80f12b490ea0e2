import type { IdempotencyRecordView } from "../journal/types.js";

/**
 * The console's view of an SQL store's row (`state`, `attempts`, `lease_ms`, `expires_ms`, `expired`): never the
 * owner token. A completed or released record past its retention is gone (`undefined`), as a claim would see it.
 */
export function recordViewOf(key: string, row: Record<string, unknown> | undefined): IdempotencyRecordView | undefined {
  if (row === undefined) return undefined;
  const state = String(row.state);
  const expired = row.expired === true || row.expired === 1 || row.expired === "1" || row.expired === "t";
  if (state !== "processing" && expired) return undefined;
  const ms = (value: unknown) => (value === null || value === undefined ? undefined : Math.round(Number(value)));
  const view: { -readonly [K in keyof IdempotencyRecordView]: IdempotencyRecordView[K] } = {
    key,
    state: state === "processing" ? "in_progress" : state === "completed" ? "completed" : "released",
  };
  const attempt = ms(row.attempts);
  if (attempt !== undefined) view.attempt = attempt;
  const expiresAt = state === "processing" ? ms(row.lease_ms) : ms(row.expires_ms);
  if (expiresAt !== undefined) view.expiresAt = expiresAt;
  return view;
}
