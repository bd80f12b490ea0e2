import type { MaybePromise } from "../../idempotency/types.js";
import type { ReceivedDelivery } from "../context.js";
import type { WebhookHttpResponse } from "../contract.js";
import {
  type InboxEnqueueResult,
  type InboxMessage,
  type InboxStage,
  InboxUnavailableError,
  type WebhookInbox,
} from "../inbox.js";
import type { ReceiverConfig } from "../receiver-config.js";
import { fixedWebhookResponse, webhookResponse } from "../response.js";
import type { Outcome } from "./direct.js";
import type { Dispatch } from "./journal.js";
import type { FailureReports } from "./report.js";
import { timeLimited } from "./store-operation.js";
import type { MaybeAsync } from "./thenable.js";

const queued = fixedWebhookResponse(200, "Webhook queued");
const duplicateOfQueued = fixedWebhookResponse(200, "Duplicate of an event already queued");

/** The stage as the receiver runs it (the inbox only carries it). */
export interface RunnableInboxStage extends InboxStage {
  readonly run: typeof inboxDelivery;
}

/**
 * The enqueue stage, for a {@link WebhookInbox} to carry as its `inboxStage`: the receiver loads it from the inbox,
 * so that apps without an inbox never bundle it.
 *
 * @example
 * const inbox: WebhookInbox = { inboxStage, enqueue: (message) => queue.addUnique(message.key, message) };
 */
export const inboxStage: InboxStage = { kind: "kirimbayar.inbox-stage", run: inboxDelivery } as RunnableInboxStage;

/**
 * Inbox mode (`createWebhookReceiver({ inbox })`): the receiver's `dispatch`, wrapped so that a verified, parsed
 * webhook is written to `inbox` under its key (`keyOf`) and answered 200 once written, 503 when the queue cannot take
 * it; its handlers run later in a worker. Events applied outside `handle()` (an inbox worker's, the reconciler's) go
 * on to `dispatch` and its handlers.
 */
export function inboxDelivery(
  inbox: WebhookInbox,
  config: ReceiverConfig,
  reports: FailureReports,
  keyOf: (event: unknown, delivery: ReceivedDelivery) => MaybePromise<string>,
  dispatch: Dispatch,
): Dispatch {
  const { source, logger, settings } = config;
  async function inboxUnavailable(error: unknown, event: unknown): Promise<WebhookHttpResponse> {
    logger.error?.("Inbox unavailable while queueing a webhook", { source, error });
    await reports.report(error, { source, stage: "inbox", status: 503, event });
    return webhookResponse(503, "Inbox unavailable; retry later");
  }
  const enqueue = (key: string, event: unknown, delivery: ReceivedDelivery): Outcome => {
    // The body parsed, so it is valid UTF-8 text.
    const message: InboxMessage = { key, source, body: delivery.body.text() as string, receivedAt: delivery.now };
    const written = enqueueEvent(inbox, message, settings.operationTimeoutMs);
    if (written instanceof Promise) return written.then(queuedAnswer, (error) => inboxUnavailable(error, event));
    return queuedAnswer(written);
  };
  return (event, delivery) => {
    if (delivery.origin !== undefined) return dispatch(event, delivery);
    const key = keyOf(event, delivery);
    if (key instanceof Promise) return key.then((hashed) => enqueue(hashed, event, delivery));
    return enqueue(key, event, delivery);
  };
}

function queuedAnswer(result: InboxEnqueueResult): WebhookHttpResponse {
  return result === "queued" ? queued() : duplicateOfQueued();
}

/**
 * The enqueue stage of an inbox-mode receiver (in place of claim → run → complete): writes the verified event to
 * the inbox under its own time limit. Resolves with the queue's answer; rejects with an
 * {@link InboxUnavailableError} when the queue throws, rejects, answers something else or does not answer in
 * `timeoutMs` — the delivery is then answered 503, so the provider retries and nothing is acknowledged unwritten.
 */
export function enqueueEvent(
  inbox: WebhookInbox,
  message: InboxMessage,
  timeoutMs: number,
): MaybeAsync<InboxEnqueueResult> {
  const written = timeLimited(
    () => inbox.enqueue(message),
    timeoutMs,
    () => new InboxUnavailableError(`The inbox did not take the event in ${timeoutMs} ms`),
  );
  if (written instanceof Promise) {
    return written.then(checked, (error: unknown) => Promise.reject(unavailable(error)));
  }
  try {
    return checked(written);
  } catch (error) {
    return Promise.reject(error);
  }
}

function checked(result: unknown): InboxEnqueueResult {
  if (result === "queued" || result === "duplicate") return result;
  throw new InboxUnavailableError(`The inbox answered ${JSON.stringify(result)} instead of "queued" or "duplicate"`);
}

function unavailable(error: unknown): InboxUnavailableError {
  return error instanceof InboxUnavailableError
    ? error
    : new InboxUnavailableError("The inbox could not take the event", { cause: error });
}
