import { type ClaimResult, type MaybePromise, unconfirmedCompletion } from "../../idempotency/types.js";
import { settleWithin } from "../../timer-delay.js";
import { DeliveryContext, type ReceivedDelivery } from "../context.js";
import type { WebhookHttpResponse } from "../contract.js";
import type { ReceiverConfig } from "../receiver-config.js";
import type { WebhookHandler } from "../registry.js";
import { webhookResponse } from "../response.js";
import { duplicateInProgress, duplicateOfCompleted, processed } from "./answers.js";
import { claimKey, releaseKey } from "./claim.js";
import { completeClaim } from "./complete.js";
import { handlerTimeoutError } from "./handler-time-limit.js";
import { monotonicNow } from "./idempotency-settings.js";
import type { NotedDelivery } from "./journal.js";
import { type FailureReports, storeError } from "./report.js";
import { runHandlers } from "./run.js";

/** A response, or its promise once the store or a handler went asynchronous. */
export type Outcome = WebhookHttpResponse | Promise<WebhookHttpResponse>;
type Handler = WebhookHandler<unknown>;

/** A receiver's delivery stage (direct, or transactional): claim the key, run the handlers, record the outcome. */
export type Deliver = (
  key: string,
  handlers: readonly Handler[],
  event: unknown,
  delivery: ReceivedDelivery,
) => Outcome;

/** A delivery that holds its key's claim, on its way through the handlers to completion or release. */
interface Claim {
  readonly owner: string;
  /** End of the lease on the monotonic clock: completion is retried until then. */
  readonly leaseEndsAt: number;
  readonly event: unknown;
  readonly context: DeliveryContext;
}

/**
 * Exactly-once without transactions: claim the key, run the handlers, then complete it; on a handler error release
 * it so the provider's retry runs them again. A store failure before the handlers answers 503 and runs nothing.
 * Synchronous as long as the store and the handlers are.
 */
export function directDelivery(config: ReceiverConfig, reports: FailureReports): Deliver {
  const { settings, source, logger, telemetry, definition } = config;
  // Claim owner tokens: unique per delivery across processes (random per receiver) without a UUID per request.
  const instanceId = globalThis.crypto.randomUUID();
  let deliveryCount = 0;

  function claim(key: string, handlers: readonly Handler[], event: unknown, delivery: ReceivedDelivery): Outcome {
    const owner = `${instanceId}:${++deliveryCount}`;
    // Measured before the claim is sent, so the receiver never counts on more lease than the store grants.
    const leaseEndsAt = monotonicNow() + settings.leaseMs;
    let claimed: MaybePromise<ClaimResult>;
    try {
      claimed = claimKey(settings, key, owner);
    } catch (error) {
      return reports.storeUnavailable(error, event);
    }
    if (claimed instanceof Promise) {
      return claimed.then(
        (result) => runClaimed(result, key, owner, leaseEndsAt, handlers, event, delivery),
        (error) => reports.storeUnavailable(error, event),
      );
    }
    return runClaimed(claimed, key, owner, leaseEndsAt, handlers, event, delivery);
  }

  function runClaimed(
    result: ClaimResult,
    key: string,
    owner: string,
    leaseEndsAt: number,
    handlers: readonly Handler[],
    event: unknown,
    delivery: ReceivedDelivery,
  ): Outcome {
    if (result.state === "completed") return duplicateOfCompleted();
    if (result.state === "in_progress") return duplicateInProgress();
    const context = new DeliveryContext(source, key, result.attempt, delivery);
    (delivery as NotedDelivery).journal?.started(context);
    const claim: Claim = { owner, leaseEndsAt, event, context };
    const startedAt = telemetry === undefined ? 0 : monotonicNow();
    let ran: MaybePromise<unknown>;
    try {
      ran = runHandlers(handlers, event, context);
    } catch (error) {
      ranFor(event, startedAt, true);
      return handlerFailed(error, claim);
    }
    if (ran instanceof Promise) {
      // The handlers' time limit (`handlerTimeoutMs`): one promise and one timer per delivery (see settleWithin).
      return settleWithin(
        ran,
        settings.handlerTimeoutMs,
        () => {
          ranFor(event, startedAt, false);
          return complete(claim);
        },
        (error) => {
          ranFor(event, startedAt, true);
          return handlerFailed(error, claim);
        },
        () => {
          ranFor(event, startedAt, true);
          return handlerTimedOut(ran as Promise<void>, claim);
        },
      );
    }
    ranFor(event, startedAt, false);
    return complete(claim);
  }

  // Telemetry of the handlers' run; a function of the receiver rather than a closure per delivery.
  function ranFor(event: unknown, startedAt: number, failed: boolean): void {
    telemetry?.handlerRan(definition.eventName(event), monotonicNow() - startedAt, failed);
  }

  // The handlers are still running at their time limit: answer 500 now (the provider retries), tell them through
  // ctx.signal, and keep the claim until they end, so that a retry meanwhile is a 409 rather than a second run.
  async function handlerTimedOut(running: Promise<void>, claim: Claim): Promise<WebhookHttpResponse> {
    const error = handlerTimeoutError(settings.handlerTimeoutMs);
    claim.context.abortHandlers(error);
    running.then(
      () => complete(claim, 500),
      (lateError: unknown) => handlerFailed(lateError, claim),
    );
    logger.error?.("A webhook handler ran out of time; answered 500 and kept its claim until it ends", {
      source,
      key: claim.context.idempotencyKey,
    });
    await report(error, claim, "handler", 500);
    return webhookResponse(500, "The webhook handler did not finish in time; the delivery will be retried");
  }

  async function handlerFailed(error: unknown, claim: Claim): Promise<WebhookHttpResponse> {
    await releaseClaim(claim.context.idempotencyKey, claim.owner);
    await report(error, claim, "handler", 500);
    return webhookResponse(500, "The webhook handler failed; the delivery will be retried");
  }

  // `answered`: the status the delivery got (500 when the handlers ended after their time limit).
  function complete(claim: Claim, answered: 200 | 500 = 200): Outcome {
    const completed = completeClaim(settings, claim.context.idempotencyKey, claim.owner, claim.leaseEndsAt);
    if (completed instanceof Promise) {
      return completed.then(
        (done) => processedAfter(done, claim),
        (error) => completionFailed(error, claim, answered),
      );
    }
    return processedAfter(completed, claim);
  }

  function processedAfter(completed: boolean, claim: Claim): WebhookHttpResponse {
    if (!completed) {
      logger.warn?.("A webhook handler finished after its lease ended; raise idempotency.leaseMs", {
        source,
        key: claim.context.idempotencyKey,
      });
    }
    return processed();
  }

  // Recording kept failing for the whole lease. The handler did finish, so 200 is the truthful answer (500 would
  // make the provider run it again for sure); a redelivery after the lease may still run it again.
  // Unless the store wrote the record but cannot vouch that it survives a failover: a 200 would then promise what a
  // failover can take back (a redelivery after it runs the handlers again), so the claim is released and the
  // delivery answered 503. The provider's retry finds the record completed once it is safe, or runs the handlers
  // again, never after a 200.
  async function completionFailed(error: unknown, claim: Claim, answered: 200 | 500): Promise<WebhookHttpResponse> {
    // The line to log comes with the error (see unconfirmedCompletion), so this receiver bundles no more of it.
    const unconfirmed = unconfirmedCompletion(error);
    logger.error?.(unconfirmed ?? "Could not record a processed webhook as completed before its lease ended", {
      source,
      error,
    });
    if (unconfirmed !== undefined) await releaseClaim(claim.context.idempotencyKey, claim.owner);
    const status = unconfirmed !== undefined && answered === 200 ? 503 : answered;
    await report(storeError(error), claim, "idempotency", status);
    return status === 503 ? webhookResponse(503, "Idempotency store unavailable; retry later") : processed();
  }

  // Tells onError (and the journal) what went wrong with a claimed delivery.
  function report(error: unknown, claim: Claim, stage: "handler" | "idempotency", status: number): Promise<void> {
    return reports.report(error, { source, stage, status, event: claim.event, context: claim.context });
  }

  async function releaseClaim(key: string, owner: string): Promise<void> {
    try {
      await releaseKey(settings, key, owner);
    } catch (error) {
      // The lease then simply runs out and a later retry claims the key.
      logger.error?.("Could not release a failed webhook's claim; it frees up when the lease ends", { source, error });
    }
  }

  return claim;
}
