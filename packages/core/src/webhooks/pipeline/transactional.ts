import type { ClaimResult, IdempotencyTransaction, TransactionalIdempotencyStore } from "../../idempotency/types.js";
import { DeliveryContext, type ReceivedDelivery } from "../context.js";
import type { WebhookHttpResponse } from "../contract.js";
import type { WebhookHandler } from "../registry.js";
import type { WebhookSource } from "../verifiers/types.js";
import { handlerTimeoutError, TIMED_OUT, withinHandlerTimeLimit } from "./handler-time-limit.js";
import type { IdempotencySettings } from "./idempotency-settings.js";
import { runHandlers } from "./run.js";
import { storeOperation } from "./store-operation.js";
import type { MaybeAsync } from "./thenable.js";

/** How the transactional stage reports back to the receiver, which owns the answers and error reporting. */
export interface TransactionalOutcomes {
  processed(): WebhookHttpResponse;
  duplicateOfCompleted(): WebhookHttpResponse;
  duplicateInProgress(): WebhookHttpResponse;
  /** The store could not open or claim: nothing ran. */
  storeUnavailable(error: unknown): Promise<WebhookHttpResponse>;
  /** A handler failed or ran out of time, or the commit failed: everything was (or will be) rolled back. */
  failed(error: unknown, context: DeliveryContext, stage: "handler" | "idempotency"): Promise<WebhookHttpResponse>;
}

/** Why a transaction did not commit. */
interface Failure {
  readonly error: unknown;
  readonly stage: "handler" | "idempotency";
}

/**
 * Claim → run → complete inside one store transaction (`idempotency: { transactional: true }`). The claim records
 * the key as completed within the transaction, the handlers write through `ctx.transaction`, and the commit makes
 * both visible at once; only then is 200 answered. A handler error, a failed commit or a crash at any point leaves
 * neither the effect nor the record, so the redelivery (or the reconciler) applies the event once. A concurrent
 * duplicate is answered 409 as soon as the store's lock timeout says another transaction holds the key.
 *
 * Handlers still running at `handlerTimeoutMs` get 500 and an aborted `ctx.signal`; their transaction is abandoned
 * (a pooled connection is closed, so nothing they send later commits), or, on a store that cannot abandon one, ends
 * as the handlers do. A transaction opened by a `begin` that answered after its time limit is rolled back.
 */
export async function runInTransaction(
  settings: IdempotencySettings,
  source: WebhookSource,
  key: string,
  handlers: readonly WebhookHandler<unknown>[],
  event: unknown,
  delivery: ReceivedDelivery,
  outcomes: TransactionalOutcomes,
): Promise<WebhookHttpResponse> {
  const store = settings.store as unknown as TransactionalIdempotencyStore;
  const timeout = settings.operationTimeoutMs;
  let transaction: IdempotencyTransaction;
  let claimed: ClaimResult;
  try {
    transaction = await storeOperation(
      () => store.begin(),
      timeout,
      "begin",
      (late) => rollBack(late, timeout),
    );
  } catch (error) {
    return outcomes.storeUnavailable(error);
  }
  try {
    claimed = await storeOperation(() => transaction.claim(key, settings.retentionMs), timeout, "claim");
  } catch (error) {
    await rollBack(transaction, timeout);
    return outcomes.storeUnavailable(error);
  }
  if (claimed.state !== "claimed") {
    await rollBack(transaction, timeout);
    return claimed.state === "completed" ? outcomes.duplicateOfCompleted() : outcomes.duplicateInProgress();
  }
  const context = new DeliveryContext(source, key, claimed.attempt, delivery, transaction.handle);
  let ran: MaybeAsync<void>;
  try {
    ran = runHandlers(handlers, event, context);
    if (ran instanceof Promise && (await withinHandlerTimeLimit(ran, settings.handlerTimeoutMs)) === TIMED_OUT) {
      return outOfTime(ran, transaction, context, settings, outcomes);
    }
  } catch (error) {
    await rollBack(transaction, timeout);
    return outcomes.failed(error, context, "handler");
  }
  const failure = await commit(transaction, timeout);
  return failure === undefined ? outcomes.processed() : outcomes.failed(failure.error, context, failure.stage);
}

// The handlers are still running at their time limit. Abandoning the transaction frees its connection and makes
// their late writes fail; a store that cannot abandon one keeps the transaction until they end, then commits or
// rolls back as it would have (the record still commits with the effect, so the retry finds it done or applies it).
function outOfTime(
  running: Promise<void>,
  transaction: IdempotencyTransaction,
  context: DeliveryContext,
  settings: IdempotencySettings,
  outcomes: TransactionalOutcomes,
): Promise<WebhookHttpResponse> {
  const error = handlerTimeoutError(settings.handlerTimeoutMs);
  context.abortHandlers(error);
  if (typeof transaction.abandon === "function") {
    transaction.abandon();
  } else {
    const timeout = settings.operationTimeoutMs;
    running
      .then(
        () => commit(transaction, timeout),
        async (lateError: unknown): Promise<Failure> => {
          await rollBack(transaction, timeout);
          return { error: lateError, stage: "handler" };
        },
      )
      .then((late) => late && outcomes.failed(late.error, context, late.stage));
  }
  return outcomes.failed(error, context, "handler");
}

async function commit(transaction: IdempotencyTransaction, timeoutMs: number): Promise<Failure | undefined> {
  try {
    await storeOperation(() => transaction.commit(), timeoutMs, "commit");
    return undefined;
  } catch (error) {
    // Committed or not, the answer is a retry: a redelivery finds the key completed if the commit did go through.
    await rollBack(transaction, timeoutMs);
    return { error, stage: "idempotency" };
  }
}

async function rollBack(transaction: IdempotencyTransaction, timeoutMs: number): Promise<void> {
  try {
    await storeOperation(() => transaction.rollback(), timeoutMs, "rollback");
  } catch {
    // The store ends an abandoned transaction itself when its connection is released or closed.
  }
}
