import { raceTimer } from "../../timer-delay.js";
import { WebhookProcessingError } from "../errors.js";

/** What {@link withinHandlerTimeLimit} resolves with when the handlers were still running at the limit. */
// No description: it never leaves the receiver, and every byte of the webhooks entry counts (bench/bundle-size).
export const TIMED_OUT: unique symbol = Symbol();

/**
 * The handlers' time limit (`handlerTimeoutMs`): resolves with what `running` settles to, or with
 * {@link TIMED_OUT} once `limitMs` passed first. `running` itself is left to go on: a promise cannot be stopped, so
 * the caller answers the delivery and decides what the handlers' late end still does (record the completion,
 * release the claim, or nothing when their transaction was abandoned).
 */
export function withinHandlerTimeLimit<T>(running: Promise<T>, limitMs: number): Promise<T | typeof TIMED_OUT> {
  return raceTimer(running, limitMs, timedOut);
}

const timedOut = (): typeof TIMED_OUT => TIMED_OUT;

/**
 * The error a delivery whose handlers ran out of time is reported with (`onError`, stage `handler`) and aborts
 * `ctx.signal` with. The delivery is answered 500, so the provider (or the inbox, or the reconciler) tries again.
 */
export function handlerTimeoutError(limitMs: number): WebhookProcessingError {
  return new WebhookProcessingError(
    `The webhook handlers did not finish within ${limitMs} ms (handlerTimeoutMs); the delivery will be retried`,
    { code: "webhook_handler_timeout", status: 500 },
  );
}
