import { ConfigurationError } from "../errors/validation.js";
import { timerDelay } from "../timer-delay.js";
import type { WebhookLogger } from "../webhooks/logger.js";
import type { ReconcileResult, ReconcileRunOptions } from "./reconciler.js";
import type { PendingReference } from "./references.js";

/** Options of {@link Reconciler.start}. */
export interface ReconcilerSchedule {
  /** Interval between the end of one run and the start of the next, in ms. */
  every: number;
  /** The references the app considers pending, asked anew before each run (e.g. a query of unpaid orders). */
  pending: () => readonly PendingReference[] | Promise<readonly PendingReference[]>;
  /** Random spread of the interval, as a fraction (default 0.1: ±10 %), so instances do not poll in step. */
  jitter?: number;
  /** Called with each run's results. */
  onReport?: (results: readonly ReconcileResult[]) => unknown;
  /**
   * Time limit of one call of `pending` or `onReport` (default 30,000 ms). A call still running then is logged
   * and left behind, and the schedule goes on: a query that hangs (a database that stopped answering) must not end
   * reconciliation for good, which is when payments start to go missing.
   */
  callbackTimeoutMs?: number;
}

/**
 * A running schedule. `stop()` lets the references in flight finish, skips the rest of the run (they are asked
 * again by the next start), does not wait for a `pending()` still running, and resolves once nothing is in flight.
 */
export interface RunningReconciler {
  stop(): Promise<void>;
}

type Reconcile = (references: readonly PendingReference[], options: ReconcileRunOptions) => Promise<ReconcileResult[]>;

const DEFAULT_CALLBACK_TIMEOUT_MS = 30_000;

/** Runs `reconcile(pending())` every `schedule.every` ms (with jitter) until stopped; see {@link ReconcilerSchedule}. */
export function startSchedule(
  reconcile: Reconcile,
  schedule: ReconcilerSchedule,
  logger: WebhookLogger,
): RunningReconciler {
  if (!(Number.isFinite(schedule?.every) && schedule.every > 0) || typeof schedule.pending !== "function") {
    throw new ConfigurationError(
      "every",
      "reconciler.start: every must be a positive number of ms and pending a function",
    );
  }
  const callbackTimeoutMs = schedule.callbackTimeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS;
  if (!(Number.isFinite(callbackTimeoutMs) && callbackTimeoutMs > 0)) {
    throw new ConfigurationError(
      "callbackTimeoutMs",
      "reconciler.start: callbackTimeoutMs must be a positive number of ms",
    );
  }
  const jitter = Math.min(Math.max(schedule.jitter ?? 0.1, 0), 1);
  const stopping = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: Promise<void> = Promise.resolve();

  const run = async () => {
    try {
      const pending = await settleWithin(() => schedule.pending(), callbackTimeoutMs, stopping.signal, "pending()");
      if (pending === STOPPED) return;
      const results = await reconcile(pending, { signal: stopping.signal });
      if (schedule.onReport !== undefined) {
        const report = schedule.onReport;
        await settleWithin(() => report(results), callbackTimeoutMs, undefined, "onReport()");
      }
    } catch (error) {
      logger.error?.("Reconciliation run failed", { error });
    }
  };
  const scheduleNext = () => {
    if (stopping.signal.aborted) return;
    const delay = schedule.every * (1 + jitter * (Math.random() * 2 - 1));
    timer = setTimeout(() => {
      inFlight = run().then(scheduleNext);
    }, timerDelay(delay));
  };
  scheduleNext();
  return {
    async stop() {
      stopping.abort();
      if (timer !== undefined) clearTimeout(timer);
      await inFlight;
    },
  };
}

const STOPPED: unique symbol = Symbol("stopped");

/**
 * Calls `callback` and waits for its value, rejecting when it throws or takes longer than `timeoutMs`, and giving up
 * with {@link STOPPED} once `stopped` aborts. A call left behind keeps running; its late result is dropped.
 */
function settleWithin<T>(
  callback: () => T | PromiseLike<T>,
  timeoutMs: number,
  stopped: AbortSignal | undefined,
  name: string,
): Promise<T | typeof STOPPED> {
  return new Promise((resolve, reject) => {
    const onStop = () => finish(() => resolve(STOPPED));
    const timer = setTimeout(
      () => finish(() => reject(new Error(`${name} did not answer within ${timeoutMs} ms (callbackTimeoutMs)`))),
      timerDelay(timeoutMs),
    );
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      stopped?.removeEventListener("abort", onStop);
      settle();
    };
    stopped?.addEventListener("abort", onStop, { once: true });
    Promise.resolve()
      .then(callback)
      .then(
        (value) => finish(() => resolve(value)),
        (error: unknown) => finish(() => reject(error)),
      );
  });
}
