import { type InboxEnqueueResult, type InboxMessage, InboxUnavailableError, type WebhookInbox } from "../inbox.js";
import { timeLimited } from "./store-operation.js";
import type { MaybeAsync } from "./thenable.js";

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
