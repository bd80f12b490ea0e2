import type { JournalOrigin } from "../../journal/types.js";
import { RequestBody } from "../body.js";
import type { WebhookHttpResponse } from "../contract.js";
import { WebhookProcessingError } from "../errors.js";
import type { InboxMessage } from "../inbox.js";
import { findPrototypeKeyIn } from "../json.js";
import { internalsOf, type ReceiverInternals } from "../receiver-internals.js";
import type { AnyWebhookReceiver, AppliedEvent } from "../receiver-types.js";
import type { OrderStatusWebhook } from "../schemas.js";
import { DUPLICATE_MESSAGE } from "./answers.js";
import type { NotedDelivery } from "./journal.js";
import { allowDuplicateKeys, type KeyCheck, parseEvent } from "./parse.js";
import type { FailureReports } from "./report.js";

/**
 * Runs an event learned elsewhere (the reconciler asked the provider's status endpoint) through `receiver`'s schema,
 * handlers and idempotency store, under the key the webhook of the same event carries: so a webhook arriving later
 * is a duplicate, and an event a webhook already applied is not applied again. Handlers see
 * `ctx.origin === "reconciliation"`. Skips only what belongs to HTTP (transport checks, verifiers). Never rejects
 * for a receiver made by {@link createWebhookReceiver} (anything else is a `WebhookConfigurationError`).
 *
 * @example
 * const result = await applyEvent(qris, { event: "payment.success", data: { qris_history_id: "h-1", amount: 10_000 } });
 * if (result.outcome === "applied") alert("a webhook was missed");
 */
export async function applyEvent(receiver: AnyWebhookReceiver, payload: unknown): Promise<AppliedEvent> {
  const internals = internalsOf(receiver, "applyEvent");
  let text: string;
  try {
    text = JSON.stringify(payload);
  } catch (error) {
    return { outcome: "invalid", error };
  }
  return applyBody(
    internals,
    new RequestBody(text ?? ""),
    findPrototypeKeyIn,
    "reconciliation",
    internals.config.clock(),
  );
}

/**
 * Runs one event that an inbox-mode receiver queued: parses `message.body` with `receiver`'s schema and runs it
 * through its handlers and idempotency store under `message.key` (so a redelivery, a reconciliation or another worker
 * never applies it twice). Handlers see `ctx.origin === "inbox"`. Never rejects for a receiver made by
 * {@link createWebhookReceiver}. Inbox workers (`startInboxWorker` of `@kirimbayar/inbox`) call it.
 *
 * @example
 * const result = await processInboxMessage(qris, message);
 */
export async function processInboxMessage(
  receiver: AnyWebhookReceiver,
  message: InboxMessage,
  options?: InboxMessageOptions,
): Promise<AppliedEvent> {
  const internals = internalsOf(receiver, "processInboxMessage");
  const source = internals.config.source;
  if (typeof message?.body !== "string" || typeof message.key !== "string" || message.source !== source) {
    const error = new WebhookProcessingError(`Not an inbox message of the ${source} source`, {
      code: "webhook_invalid_event",
      status: 400,
    });
    return { outcome: "invalid", error };
  }
  const receivedAt = Number.isFinite(message.receivedAt) ? message.receivedAt : internals.config.clock();
  // A queued body is text from outside the process: checked like a webhook's, repeated keys allowed as before.
  const body = new RequestBody(message.body);
  const journalled = { origin: options?.replay === true ? "replay" : "inbox", attempt: options?.attempt } as const;
  return applyBody(internals, body, allowDuplicateKeys, "inbox", receivedAt, message.key, journalled);
}

/** What an inbox worker knows of the try it runs (`processInboxMessage`), for the delivery journal. */
export interface InboxMessageOptions {
  /** The inbox's 1-based try number: the journal records it as the entry's `attempt`. */
  readonly attempt?: number;
  /** The message is replayed by hand (a dead letter): the journal records origin `replay`. */
  readonly replay?: boolean;
}

// The receiver's failures of the events being applied, by event object, so that each apply learns the error of its
// own event: the map and the wrap of `report` that fills it are made by the receiver's first apply (as the journal
// wraps `report`), so a receiver that only answers webhooks bundles none of it. A Map emptied as each apply ends, not
// a WeakMap: weak entries cost every garbage collection, and a reconciliation run applies thousands of events.
function applyFailuresOf(reports: FailureReports): Map<object, { error?: unknown }> {
  if (reports.applyFailures !== undefined) return reports.applyFailures;
  const failures = new Map<object, { error?: unknown }>();
  reports.applyFailures = failures;
  const report = reports.report.bind(reports);
  reports.report = (error, context) => {
    // A Map answers undefined for a key it never held, an event that is no object included.
    const slot = failures.get(context.event as object);
    if (slot) slot.error = error;
    return report(error, context);
  };
  return failures;
}

// Parse → claim → run → complete for an event that did not come through `handle()`: no transport checks and no
// verifiers (the webhook's were passed before it was queued, or it came from the provider's status endpoint). The
// receiver's own dispatch runs it, through the same handlers and idempotency store; its answer is told back as an
// AppliedEvent.
async function applyBody(
  { config, reports, registry, dispatch }: ReceiverInternals,
  body: RequestBody,
  keyCheck: KeyCheck,
  origin: "reconciliation" | "inbox",
  now: number,
  knownKey?: string,
  journalled?: { readonly origin: JournalOrigin; readonly attempt: number | undefined },
): Promise<AppliedEvent> {
  const { source, definition, telemetry, customKey } = config;
  const parsed = parseEvent(body, source, definition, keyCheck);
  if (!parsed.ok) {
    dispatch.journal?.done(parsed.response, body.text(), journalled?.origin ?? origin, journalled?.attempt);
    const error = new WebhookProcessingError(JSON.parse(parsed.response.body).message, {
      code: "webhook_invalid_event",
      status: 400,
    });
    return { outcome: "invalid", error };
  }
  const event = parsed.event as object;
  const slot: { error?: unknown } = {};
  const failures = applyFailuresOf(reports);
  failures.set(event, slot);
  const delivery: NotedDelivery = {
    origin,
    now,
    headers: {},
    body,
    remoteAddress: undefined,
    journalAs: journalled,
    journal: undefined,
  };
  const finish = telemetry?.delivery(origin);
  let response: WebhookHttpResponse;
  try {
    const outcome = dispatch(event, delivery);
    response = outcome instanceof Promise ? await outcome : outcome;
  } catch (error) {
    finish?.(500, "", error);
    return { outcome: "failed", error };
  } finally {
    failures.delete(event);
  }
  finish?.(response.status, response.body, slot.error);
  const keyed = knownKey ?? customKey?.(event) ?? definition.defaultKey(event);
  const withKey = keyed === undefined ? {} : { key: keyed };
  if (response.status === 409) return { outcome: "in_progress", ...withKey };
  if (response.status !== 200) {
    const error =
      slot.error ??
      new WebhookProcessingError(JSON.parse(response.body).message, {
        code: "webhook_failed",
        status: response.status,
      });
    return { outcome: "failed", error, ...withKey };
  }
  const status = source === "orders" ? (event as OrderStatusWebhook).status : undefined;
  if (registry.select(definition.eventName(event), status).length === 0) return { outcome: "not_handled", ...withKey };
  // The body is one of two fixed answers; no need to parse it.
  return { outcome: response.body.includes(DUPLICATE_MESSAGE) ? "already_applied" : "applied", ...withKey };
}
