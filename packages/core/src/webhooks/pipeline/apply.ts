import { RequestBody } from "../body.js";
import type { ReceivedDelivery } from "../context.js";
import type { WebhookHttpResponse } from "../contract.js";
import { WebhookProcessingError } from "../errors.js";
import type { InboxMessage } from "../inbox.js";
import type { ReceiverConfig } from "../receiver-config.js";
import type { AppliedEvent } from "../receiver-types.js";
import type { HandlerRegistry } from "../registry.js";
import type { OrderStatusWebhook } from "../schemas.js";
import { DUPLICATE_MESSAGE } from "./answers.js";
import type { Outcome } from "./direct.js";
import { type KeyCheck, parseEvent } from "./parse.js";
import type { FailureReports } from "./report.js";

/** `applyEvent` and `processInboxMessage` of a receiver. */
export interface ApplyStages {
  applyEvent(payload: unknown): Promise<AppliedEvent>;
  processInboxMessage(message: InboxMessage): Promise<AppliedEvent>;
}

/**
 * Parse → claim → run → complete for an event that did not come through `handle()`: no transport checks and no
 * verifiers (the webhook's were passed before it was queued, or it came from the provider's status endpoint).
 * `dispatch` is the receiver's own, so the event goes through the same handlers and idempotency store; the answer
 * is told back as an {@link AppliedEvent}.
 */
export function applyStages(
  config: ReceiverConfig,
  reports: FailureReports,
  registry: HandlerRegistry,
  dispatch: (event: unknown, delivery: ReceivedDelivery) => Outcome,
): ApplyStages {
  const { source, definition, clock, telemetry, customKey } = config;

  async function applyBody(
    body: RequestBody,
    keyCheck: KeyCheck,
    origin: "reconciliation" | "inbox",
    now: number,
    knownKey: string | undefined,
  ): Promise<AppliedEvent> {
    const parsed = parseEvent(body, source, definition, keyCheck);
    if (!parsed.ok) {
      const error = new WebhookProcessingError(JSON.parse(parsed.response.body).message, {
        code: "webhook_invalid_event",
        status: 400,
      });
      return { outcome: "invalid", error };
    }
    const event = parsed.event as object;
    const slot: { error?: unknown } = {};
    reports.applyFailures.set(event, slot);
    const delivery: ReceivedDelivery = { origin, now, headers: {}, body, remoteAddress: undefined };
    const finish = telemetry?.delivery(origin);
    let response: WebhookHttpResponse;
    try {
      const outcome = dispatch(event, delivery);
      response = outcome instanceof Promise ? await outcome : outcome;
    } catch (error) {
      finish?.(500, "", error);
      return { outcome: "failed", error };
    } finally {
      reports.applyFailures.delete(event);
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
    if (registry.select(definition.eventName(event), status).length === 0)
      return { outcome: "not_handled", ...withKey };
    // The body is one of two fixed answers; no need to parse it.
    return { outcome: response.body.includes(DUPLICATE_MESSAGE) ? "already_applied" : "applied", ...withKey };
  }

  return {
    async applyEvent(payload) {
      let text: string;
      try {
        text = JSON.stringify(payload);
      } catch (error) {
        return { outcome: "invalid", error };
      }
      return applyBody(new RequestBody(text ?? ""), "serialized", "reconciliation", clock(), undefined);
    },
    async processInboxMessage(message) {
      if (typeof message?.body !== "string" || typeof message.key !== "string" || message.source !== source) {
        const error = new WebhookProcessingError(`Not an inbox message of the ${source} source`, {
          code: "webhook_invalid_event",
          status: 400,
        });
        return { outcome: "invalid", error };
      }
      const receivedAt = Number.isFinite(message.receivedAt) ? message.receivedAt : clock();
      // A queued body is text from outside the process: checked like a webhook's, repeated keys allowed as before.
      return applyBody(new RequestBody(message.body), "allow-duplicates", "inbox", receivedAt, message.key);
    },
  };
}
