import { type ClaimResult, IdempotencyStoreUnavailableError } from "../../idempotency/types.js";
import type { IdempotencySettings } from "./idempotency-settings.js";
import { storeOperation } from "./store-operation.js";
import { adopt, type MaybeAsync } from "./thenable.js";

/**
 * The claim stage: asks the store for the event's key under a lease. Throws or rejects (and the receiver answers
 * 503, running nothing) when the store throws, times out or answers something that is not a claim result, so a
 * broken store can never let a delivery through unclaimed.
 *
 * A claim that answers only after its time limit (a frozen Redis applying it when it wakes, a statement that got
 * its connection late) is released as soon as it does: the delivery was answered 503 and runs nothing, so keeping
 * the key would answer the provider's retries 409 for a whole lease with nobody working on the event.
 */
export function claimKey(settings: IdempotencySettings, key: string, owner: string): MaybeAsync<ClaimResult> {
  // Asked here rather than through storeOperation: a store answering synchronously then costs no closure. A throw
  // goes to the caller as it is, which answers it as it answers a rejection.
  const claimed = adopt(settings.store.claim(key, owner, settings.leaseMs));
  if (!(claimed instanceof Promise)) return checkedClaim(claimed);
  return (
    storeOperation(
      () => claimed,
      settings.operationTimeoutMs,
      "claim",
      (late) => releaseLateClaim(settings, key, owner, late),
    ) as Promise<ClaimResult>
  ).then(checkedClaim);
}

function checkedClaim(result: ClaimResult): ClaimResult {
  const state = (result as { state?: unknown } | null | undefined)?.state;
  if (state === "claimed" || state === "completed" || state === "in_progress") return result;
  throw new IdempotencyStoreUnavailableError("The idempotency store answered a claim with an unknown result");
}

// Only this delivery's own claim is released (the stores' release is compare-and-delete on `owner`). A release that
// fails or hangs in turn leaves the lease to run out, as it would for a failed handler's claim.
function releaseLateClaim(settings: IdempotencySettings, key: string, owner: string, late: ClaimResult): void {
  if ((late as { state?: unknown } | null | undefined)?.state !== "claimed") return;
  const released = releaseKey(settings, key, owner);
  if (released instanceof Promise) released.catch(() => {});
}

/**
 * The release stage: gives `owner`'s claim of `key` back (the stores count the failed attempt), under the store's
 * time limit, so that a retry can claim it. Rejects when the store throws or times out.
 */
export function releaseKey(settings: IdempotencySettings, key: string, owner: string): MaybeAsync<boolean> {
  return storeOperation(
    () => settings.store.release(key, owner, settings.retentionMs),
    settings.operationTimeoutMs,
    "release",
  );
}
