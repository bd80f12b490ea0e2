import { type ClaimResult, IdempotencyStoreUnavailableError } from "../../idempotency/types.js";
import type { IdempotencySettings } from "./idempotency-settings.js";
import { storeOperation } from "./store-operation.js";
import type { MaybeAsync } from "./thenable.js";

/**
 * The claim stage: asks the store for the event's key under a lease. Rejects (and the receiver answers 503,
 * running nothing) when the store throws, times out or answers something that is not a claim result, so a
 * broken store can never let a delivery through unclaimed.
 */
export function claimKey(settings: IdempotencySettings, key: string, owner: string): MaybeAsync<ClaimResult> {
  const claimed = storeOperation(
    () => settings.store.claim(key, owner, settings.leaseMs),
    settings.operationTimeoutMs,
    "claim",
  );
  return claimed instanceof Promise ? claimed.then(checkedClaim) : checkedClaim(claimed);
}

function checkedClaim(result: ClaimResult): ClaimResult {
  const state = (result as { state?: unknown } | null | undefined)?.state;
  if (state === "claimed" || state === "completed" || state === "in_progress") return result;
  throw new IdempotencyStoreUnavailableError("The idempotency store answered a claim with an unknown result");
}
