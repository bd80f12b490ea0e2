import { unconfirmedCompletion } from "../../idempotency/types.js";
import { type IdempotencySettings, monotonicNow } from "./idempotency-settings.js";
import { storeOperation } from "./store-operation.js";
import type { MaybeAsync } from "./thenable.js";

// A hard bound besides the lease, whatever the delays are configured to.
const MAX_TRIES = 200;

/**
 * The complete stage: records the event as done once its handlers finished. Resolves with the store's answer
 * (`false`: another delivery took the key over after the lease ended, or it was already done).
 *
 * Recording is what stops a redelivery from running the handlers again, so a failure is not final: the store is
 * tried again with exponential back-off (with jitter) for as long as the claim's lease lasts (`leaseEndsAt`, on
 * the monotonic clock) and half a lease beyond it, each try under the store's operation timeout. Past the lease a
 * completion is still recorded unless another delivery claimed the key meanwhile (the stores' compare-and-set), so
 * trying on can only turn a later duplicate run into a recorded completion. The pauses never exceed a tenth of the
 * lease, and the last tries are kept for the final stretch, so a store that comes back late is still reached.
 * Rejects with the last error only when that time ran out first. A store that answers
 * synchronously stays synchronous on success.
 *
 * A store that wrote the completion but cannot vouch that it survives a failover
 * (`IdempotencyRecordNotDurableError`) is not tried again: the delivery is answered 503 at once (see direct.ts).
 */
export function completeClaim(
  settings: IdempotencySettings,
  key: string,
  owner: string,
  leaseEndsAt: number,
): MaybeAsync<boolean> {
  const record = () => settings.store.complete(key, owner, settings.retentionMs);
  const first = storeOperation(record, settings.operationTimeoutMs, "complete");
  if (!(first instanceof Promise)) return first;
  return first.catch((error: unknown) => retryCompletion(settings, record, leaseEndsAt, error));
}

async function retryCompletion(
  settings: IdempotencySettings,
  record: () => boolean | PromiseLike<boolean>,
  leaseEndsAt: number,
  firstError: unknown,
): Promise<boolean> {
  const maxDelay = Math.min(settings.completionRetryMaxDelayMs, settings.leaseMs / 10);
  const deadline = leaseEndsAt + settings.leaseMs / 2;
  // Time kept for the last try before the lease ends.
  const finalStretch = Math.min(settings.operationTimeoutMs, settings.leaseMs / 10);
  let lastError = firstError;
  let delay = Math.min(settings.completionRetryMinDelayMs, maxDelay);
  // A completion the store wrote but cannot vouch for (IdempotencyRecordNotDurableError) ends the tries at once.
  for (let tries = 1; tries < MAX_TRIES && unconfirmedCompletion(lastError) === undefined; tries++) {
    const leaseLeft = deadline - monotonicNow();
    const jittered = delay * (0.5 + Math.random() / 2);
    // Before the final stretch, never sleep past its start; within it, keep the back-off but stay in the lease.
    const wait = Math.min(jittered, leaseLeft > finalStretch ? leaseLeft - finalStretch : leaseLeft - 1);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const timeLeft = deadline - monotonicNow();
    if (timeLeft <= 0) break;
    try {
      return await storeOperation(record, Math.min(settings.operationTimeoutMs, timeLeft), "complete");
    } catch (error) {
      lastError = error;
    }
    delay = Math.min(delay * 2, maxDelay);
  }
  throw lastError;
}
