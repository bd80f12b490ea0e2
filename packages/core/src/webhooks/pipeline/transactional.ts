import type {
  ClaimResult,
  IdempotencyTransaction,
  TransactionalIdempotencyStore,
  TransactionalStage,
} from "../../idempotency/types.js";
import { DeliveryContext, type ReceivedDelivery } from "../context.js";
import type { WebhookHttpResponse } from "../contract.js";
import type { ReceiverConfig } from "../receiver-config.js";
import type { WebhookHandler } from "../registry.js";
import { webhookResponse } from "../response.js";
import { duplicateInProgress, duplicateOfCompleted, processed } from "./answers.js";
import type { Deliver } from "./direct.js";
import { handlerTimeoutError, TIMED_OUT, withinHandlerTimeLimit } from "./handler-time-limit.js";
import type { IdempotencySettings } from "./idempotency-settings.js";
import type { NotedDelivery } from "./journal.js";
import { type FailureReports, storeError } from "./report.js";
import { runHandlers } from "./run.js";
import { storeOperation } from "./store-operation.js";
import type { MaybeAsync } from "./thenable.js";

/** The stage as the receiver runs it (the store only carries it): its deliveries' claim, handlers and commit. */
export interface RunnableTransactionalStage extends TransactionalStage {
  readonly run: typeof transactionalDelivery;
}

/**
 * The transactional stage, for a {@link TransactionalIdempotencyStore} to carry as its `transactionalStage`: the
 * receiver loads it from the store, so that apps on stores without transactions never bundle it.
 *
 * @example
 * class MyStore implements IdempotencyStore, TransactionalIdempotencyStore {
 *   readonly transactionalStage = transactionalStage;
 *   // claim, complete, release, begin ...
 * }
 */
export const transactionalStage: TransactionalStage = {
  kind: "kirimbayar.transactional-stage",
  run: transactionalDelivery,
} as RunnableTransactionalStage;

/** A receiver's deliveries in store transactions: what the receiver runs in place of the direct stage. */
function transactionalDelivery(config: ReceiverConfig, reports: FailureReports): Deliver {
  return (key, handlers, event, delivery) => runInTransaction(config.settings, reports, key, handlers, event, delivery);
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
  reports: FailureReports,
  key: string,
  handlers: readonly WebhookHandler<unknown>[],
  event: unknown,
  delivery: ReceivedDelivery,
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
    return reports.storeUnavailable(error, event);
  }
  try {
    claimed = await storeOperation(() => transaction.claim(key, settings.retentionMs), timeout, "claim");
  } catch (error) {
    await rollBack(transaction, timeout);
    return reports.storeUnavailable(error, event);
  }
  if (claimed.state !== "claimed") {
    await rollBack(transaction, timeout);
    return claimed.state === "completed" ? duplicateOfCompleted() : duplicateInProgress();
  }
  const context = new DeliveryContext(reports.source, key, claimed.attempt, delivery, transaction.handle);
  (delivery as NotedDelivery).journal?.started(context);
  let ran: MaybeAsync<unknown>;
  try {
    ran = runHandlers(handlers, event, context);
    if (ran instanceof Promise && (await withinHandlerTimeLimit(ran, settings.handlerTimeoutMs)) === TIMED_OUT) {
      return outOfTime(ran, transaction, event, context, settings, reports);
    }
  } catch (error) {
    await rollBack(transaction, timeout);
    return failed(reports, { error, stage: "handler" }, event, context);
  }
  // The journal's entry goes in with the effect. A journal write that failed (or ran out of time) may have left the
  // transaction unable to commit: PostgreSQL aborts it at its first failed statement and then answers COMMIT with a
  // rollback, not an error, so committing would answer 200 for an effect that was never written. So it is rolled
  // back and the delivery runs once more in a new transaction without the journal in it (the note then records the
  // entry outside, after the answer): a journal can never fail a delivery nor lose its effect. The handlers run
  // again, as they would on the provider's retry after any rollback.
  const note = (delivery as NotedDelivery).journal;
  if (note !== undefined && !(await note.inTransaction(transaction, timeout))) {
    await rollBack(transaction, timeout);
    return runInTransaction(settings, reports, key, handlers, event, delivery);
  }
  const failure = await commit(transaction, timeout);
  return failure === undefined ? processed() : failed(reports, failure, event, context);
}

// A handler failed or ran out of time, or the commit failed: everything was (or will be) rolled back, and the
// delivery is answered 500 so that it is tried again.
async function failed(
  reports: FailureReports,
  { error, stage }: Failure,
  event: unknown,
  context: DeliveryContext,
): Promise<WebhookHttpResponse> {
  const source = reports.source;
  if (stage === "idempotency") {
    reports.logger.error?.("Could not commit a webhook's transaction; it was rolled back", { source, error });
  }
  await reports.report(stage === "handler" ? error : storeError(error), { source, stage, status: 500, event, context });
  return webhookResponse(
    500,
    stage === "handler"
      ? "The webhook handler failed; the delivery will be retried"
      : "Could not commit the webhook's transaction; the delivery will be retried",
  );
}

// The handlers are still running at their time limit. Abandoning the transaction frees its connection and makes
// their late writes fail; a store that cannot abandon one keeps the transaction until they end, then commits or
// rolls back as it would have (the record still commits with the effect, so the retry finds it done or applies it).
function outOfTime(
  running: Promise<void>,
  transaction: IdempotencyTransaction,
  event: unknown,
  context: DeliveryContext,
  settings: IdempotencySettings,
  reports: FailureReports,
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
      .then((late) => late && failed(reports, late, event, context));
  }
  return failed(reports, { error, stage: "handler" }, event, context);
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
