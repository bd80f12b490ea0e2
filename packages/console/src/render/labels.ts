// How sources and reconciliation outcomes read on the pages.
import type { WebhookSource } from "@kirimbayar/core/webhooks";

/** A source's name for people, with its wire name. */
export const SOURCE_LABELS: Readonly<Record<WebhookSource, string>> = {
  qris: "QR payments (qris)",
  payment: "Payment gateway (payment)",
  orders: "Order status (orders)",
};

const RUN_OUTCOMES: Readonly<Record<string, string>> = {
  applied: "applied: found only by reconciliation (their webhooks never arrived)",
  already_applied: "already applied by a webhook",
  pending: "still unpaid at the provider",
  in_progress: "being handled by a webhook at that moment",
  not_handled: "moved on, but no handler listens",
  skipped: "skipped (polling limits, or the run was stopped)",
  failed: "failed (the provider, a handler or the store)",
};

/** `3 applied: found only by reconciliation (…)`. */
export function runOutcome(outcome: string, count: number): string {
  return `${count} ${RUN_OUTCOMES[outcome] ?? outcome}`;
}
