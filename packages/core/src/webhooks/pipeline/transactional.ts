import type { ClaimResult, IdempotencyTransaction, TransactionalIdempotencyStore } from "../../idempotency/types.js";
import { DeliveryContext, type ReceivedDelivery } from "../context.js";
import type { WebhookHttpResponse } from "../contract.js";
import type { WebhookHandler } from "../registry.js";
import type { WebhookSource } from "../verifiers/types.js";
import type { IdempotencySettings } from "./idempotency-settings.js";
import { runHandlers } from "./run.js";
import { storeOperation } from "./store-operation.js";

/** How the transactional stage reports back to the receiver, which owns the answers and error reporting. */
export interface TransactionalOutcomes {
  processed(): WebhookHttpResponse;
  duplicateOfCompleted(): WebhookHttpResponse;
  duplicateInProgress(): WebhookHttpResponse;
  /** The store could not open or claim: nothing ran. */
  storeUnavailable(error: unknown): Promise<WebhookHttpResponse>;
  /** A handler failed, or the commit did: everything was rolled back. */
  failed(error: unknown, context: DeliveryContext, stage: "handler" | "idempotency"): Promise<WebhookHttpResponse>;
}

/**
 * Claim → run → complete inside one store transaction (`idempotency: { transactional: true }`). The claim records
 * the key as completed within the transaction, the handlers write through `ctx.transaction`, and the commit makes
 * both visible at once; only then is 200 answered. A handler error, a failed commit or a crash at any point leaves
 * neither the effect nor the record, so the redelivery (or the reconciler) applies the event once. A concurrent
 * duplicate is answered 409 as soon as the store's lock timeout says another transaction holds the key.
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
    transaction = await storeOperation(() => store.begin(), timeout, "begin");
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
  try {
    await runHandlers(handlers, event, context);
  } catch (error) {
    await rollBack(transaction, timeout);
    return outcomes.failed(error, context, "handler");
  }
  try {
    await storeOperation(() => transaction.commit(), timeout, "commit");
  } catch (error) {
    // Committed or not, the answer is a retry: a redelivery finds the key completed if the commit did go through.
    await rollBack(transaction, timeout);
    return outcomes.failed(error, context, "idempotency");
  }
  return outcomes.processed();
}

async function rollBack(transaction: IdempotencyTransaction, timeoutMs: number): Promise<void> {
  try {
    await storeOperation(() => transaction.rollback(), timeoutMs, "rollback");
  } catch {
    // The store ends an abandoned transaction itself when its connection is released or closed.
  }
}
