// Times as the pages show them: UTC, to the second, and relative to now ("3 min ago").
import { html, type SafeHtml } from "./html.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** `2026-11-27 23:09:15 UTC`. */
export function utc(at: number): string {
  return `${new Date(at).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** A span of time in words: `45 s`, `3 min`, `5 h`, `2 d`. */
export function duration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < MINUTE) return `${Math.round(abs / 1000)} s`;
  if (abs < HOUR) return `${Math.floor(abs / MINUTE)} min`;
  if (abs < DAY) return `${Math.floor(abs / HOUR)} h`;
  return `${Math.floor(abs / DAY)} d`;
}

/** `3 min ago`, `in 4 min`, `just now`. */
export function relative(at: number, now: number): string {
  const diff = now - at;
  if (Math.abs(diff) < 5_000) return "just now";
  return diff > 0 ? `${duration(diff)} ago` : `in ${duration(diff)}`;
}

/** A `<time>` in UTC followed by how long ago it was. */
export function when(at: number | undefined, now: number): SafeHtml {
  if (at === undefined || !Number.isFinite(at)) return html`<span class="muted">never</span>`;
  return html`<time datetime="${new Date(at).toISOString()}">${utc(at)}</time> <span class="muted">(${relative(at, now)})</span>`;
}
