import { KirimbayarError } from "../errors/base.js";
import type { WebhookSource } from "./verifiers/types.js";

/**
 * One verified webhook event, as an inbox-mode receiver writes it to its queue: what a worker needs to run it
 * later through the same receiver's schema, handlers and idempotency store ({@link WebhookInbox}).
 */
export interface InboxMessage {
  /** The event's idempotency key: the queue's unique job key, so a redelivery adds no second job. */
  readonly key: string;
  readonly source: WebhookSource;
  /** The verified body, exactly as received (UTF-8 text of JSON). */
  readonly body: string;
  /** When the delivery arrived (epoch ms): the start of the worker's retry period. */
  readonly receivedAt: number;
}

/** `queued`: written now; `duplicate`: a message with this key is already queued, waiting or running. */
export type InboxEnqueueResult = "queued" | "duplicate";

/**
 * Where an inbox-mode receiver writes verified events before answering 200 (`createWebhookReceiver({ inbox })`).
 * `@kirimbayar/inbox` has engines on pg-boss and BullMQ; anything durable with a unique key can be one.
 */
export interface WebhookInbox {
  /**
   * Writes `message` durably, with `message.key` as its unique key; resolves (or returns) once it is written.
   * Throw or reject when the queue cannot take it: the delivery is answered 503 and the provider retries.
   */
  enqueue(message: InboxMessage): InboxEnqueueResult | PromiseLike<InboxEnqueueResult>;
  /**
   * The receiver's enqueue stage, brought by the inbox so that an app without an inbox never bundles it. The
   * engines of `@kirimbayar/inbox` set it; an inbox of your own sets it to `inboxStage` of `@kirimbayar/core`.
   */
  readonly inboxStage: InboxStage;
}

/**
 * The receiver's stage that writes a verified event to the inbox (under the store's operation time limit) and
 * answers the delivery, opaque to the inbox that carries it ({@link WebhookInbox.inboxStage}).
 */
export interface InboxStage {
  readonly kind: "kirimbayar.inbox-stage";
}

/** The inbox queue could not take an event (unreachable, too slow, or it refused): the delivery gets 503. */
export class InboxUnavailableError extends KirimbayarError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: "inbox_unavailable", cause: options.cause });
  }
}
