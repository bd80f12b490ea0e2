import type { IdempotencyStore } from "../../idempotency/types.js";

/** How a receiver drives its idempotency store; fixed when the receiver is built. */
export interface IdempotencySettings {
  readonly store: IdempotencyStore;
  /** How long a claim protects a running delivery. */
  readonly leaseMs: number;
  /** How long a completed event is remembered. */
  readonly retentionMs: number;
  /** Time limit of one store operation. */
  readonly operationTimeoutMs: number;
  /** First and largest pause between two tries of recording a completion. */
  readonly completionRetryMinDelayMs: number;
  readonly completionRetryMaxDelayMs: number;
  /** How long the handlers of one claimed delivery may run before it is answered 500 (see `handlerTimeoutMs`). */
  readonly handlerTimeoutMs: number;
}

/** A clock that never jumps (leases are real durations even when the receiver's `clock` is a test's fake). */
export const monotonicNow = (): number => globalThis.performance.now();
