// The result of an action, shown once on the page it redirects to. Only these fixed codes travel in the URL, so
// nothing a visitor writes in a link is ever reflected into the page.
import { html, type SafeHtml } from "./html.js";

/** Every notice: its tone and its text. */
export const NOTICES = {
  replayed: ["ok", "The dead letter was queued again: the inbox worker runs it through the idempotency store."],
  replay_missing: ["bad", "No such dead letter: it was already replayed or removed."],
  replay_failed: ["bad", "The replay failed; the app's error log has why."],
  replay_unavailable: ["bad", "That source has no inbox in this console."],
  reconcile_applied: [
    "ok",
    "Reconciled: the provider reports it moved on, and the event was applied now (its webhook never arrived).",
  ],
  reconcile_already_applied: ["ok", "Reconciled: the event was already applied; nothing ran twice."],
  reconcile_pending: ["ok", "Reconciled: the provider still reports it unpaid."],
  reconcile_in_progress: ["bad", "A delivery of this event is being handled right now; try again in a moment."],
  reconcile_not_handled: ["bad", "The provider reports a change, but no handler listens to that event."],
  reconcile_skipped: ["bad", "Skipped by the provider's polling limit for this reference; try again in a few seconds."],
  reconcile_failed: ["bad", "Reconciling failed (the provider, a handler or the store); the app's error log has why."],
  reconcile_invalid: [
    "bad",
    "That reference cannot be reconciled: QR payments (history id) and payment-gateway payments (payment id) only.",
  ],
  reconcile_unavailable: ["bad", "No reconciler is configured for that source."],
} as const satisfies Record<string, readonly ["ok" | "bad", string]>;

/** A notice's code. */
export type NoticeCode = keyof typeof NOTICES;

/** The notice of `code`, or nothing for an unknown code. */
export function noticeOf(code: string | null): SafeHtml | undefined {
  if (code === null || !Object.hasOwn(NOTICES, code)) return undefined;
  const [tone, message] = NOTICES[code as NoticeCode];
  return html`<p class="notice ${tone}" role="status">${message}</p>`;
}
