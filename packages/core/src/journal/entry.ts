// What a journal entry says of a delivery: its outcome (from the answer), the event's state and the references a
// person searches by. Shared by the journal stage and by journals of other stores.
import type { OrderStatusWebhook, PaymentCallback, QrisWebhookEvent } from "../webhooks/schemas.js";
import type { WebhookSource } from "../webhooks/verifiers/types.js";
import type { JournalOutcome, JournalReferences } from "./types.js";

/** The longest reference a journal keeps (longer ones are cut: they are searched by exact match anyway). */
export const MAX_REFERENCE_LENGTH = 200;

/**
 * The outcome a delivery answered `status` with `body` (one of the receiver's own answers) came to.
 *
 * @example
 * journalOutcomeOf(409, "") // "in_progress"
 */
export function journalOutcomeOf(status: number, body: string): JournalOutcome {
  if (status >= 200 && status < 300) {
    if (body.includes("Duplicate of an event")) return "duplicate";
    if (body.includes("Webhook queued")) return "queued";
    return body.includes("No handler registered") ? "not_handled" : "processed";
  }
  if (status === 409) return "in_progress";
  return status >= 500 ? "failed" : "refused";
}

/**
 * The references of an event of `source`, parsed by the receiver's schema, or (for a body refused as invalid) as
 * the raw JSON carries them: QR `qris_history_id` (or `history_id`, in `data` or flat), payment `payment_id` and
 * `order_id`, orders `order_no` and `cnote`. Only strings and numbers are kept, as text.
 */
export function referencesOf(source: WebhookSource, event: unknown): JournalReferences {
  if (typeof event !== "object" || event === null) return {};
  const body = event as Record<string, unknown>;
  const references: Record<string, string> = {};
  if (source === "qris") {
    const data = (typeof body.data === "object" && body.data !== null ? body.data : body) as Record<string, unknown>;
    keep(references, "qris_history_id", data.qris_history_id ?? data.history_id);
  } else if (source === "payment") {
    keep(references, "payment_id", body.payment_id);
    keep(references, "order_id", body.order_id);
  } else {
    keep(references, "order_no", body.order_no);
    keep(references, "cnote", body.cnote);
  }
  return references;
}

/** The state an event reports: QR its event name (`payment.success`, `payment.expired`), others their `status`. */
export function stateOf(source: WebhookSource, event: unknown): string | undefined {
  if (typeof event !== "object" || event === null) return undefined;
  if (source === "qris") return text((event as QrisWebhookEvent).event);
  return text((event as PaymentCallback | OrderStatusWebhook).status);
}

function text(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string" || value === "") return undefined;
  return value.length > MAX_REFERENCE_LENGTH ? value.slice(0, MAX_REFERENCE_LENGTH) : value;
}

// Sets the reference only when the event has it (written in place: one object per entry, no intermediate).
function keep(references: Record<string, string>, name: string, value: unknown): void {
  const kept = text(value);
  if (kept !== undefined) references[name] = kept;
}
