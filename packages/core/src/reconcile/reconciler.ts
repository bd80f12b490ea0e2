import { RateLimitError } from "../errors/api-error.js";
import { ConfigurationError, RequestValidationError, type ValidationIssue } from "../errors/validation.js";
import { defaultJournalInstance } from "../journal/instance.js";
import type { DeliveryJournal } from "../journal/types.js";
import { type KirimbayarTelemetry, SPAN_ERROR, SPAN_OK } from "../telemetry/types.js";
import { type AnyLogger, webhookLoggerOf } from "../webhooks/logger.js";
import { applyEvent } from "../webhooks/pipeline/apply.js";
import { timeLimited } from "../webhooks/pipeline/store-operation.js";
import { isWebhookReceiver } from "../webhooks/receiver-internals.js";
import type { AnyWebhookReceiver, AppliedEvent } from "../webhooks/receiver-types.js";
import { PollLimits } from "./poll-limits.js";
import {
  type GatewayPaymentRecord,
  gatewayCallbackFromStatus,
  type QrisStatusRecord,
  qrisWebhookFromStatus,
} from "./provider-events.js";
import { assertReferences, idOf, type PendingReference } from "./references.js";
import { type ReconcilerSchedule, type RunningReconciler, startSchedule } from "./schedule.js";

export type { ReconcilerSchedule, RunningReconciler } from "./schedule.js";

/** A receiver the reconciler applies events through: a `WebhookReceiver` of the matching source. */
export type ReconcilableReceiver = AnyWebhookReceiver;

/** The status call of the QR service (`QrisClient` is one). */
export interface QrisStatusSource {
  getQrisPaymentStatus(historyId: string): Promise<{ readonly data: QrisStatusRecord }>;
}

/** The status call of the payment gateway (`PaymentGatewayClient` is one). */
export interface GatewayStatusSource {
  getPaymentStatus(paymentId: string): Promise<{ readonly data: GatewayPaymentRecord }>;
}

/** Options of {@link createReconciler}. */
export interface ReconcilerOptions {
  /** The receivers the app already has: events found are run through their handlers and idempotency stores. */
  receivers: { qris?: ReconcilableReceiver; payment?: ReconcilableReceiver };
  /** The clients to ask. */
  clients: { qris?: QrisStatusSource; payment?: GatewayStatusSource };
  /** Status requests in flight at once (default 4). */
  concurrency?: number;
  /** Least time between two status requests for one id (default 3,000 ms, the provider's polling limit). */
  minIntervalPerIdMs?: number;
  /** Epoch milliseconds; default `Date.now`. */
  clock?: () => number;
  /**
   * Where `start()` reports a run that could not happen (its `pending` callback threw), and a run a journal write
   * that failed; default `console`. A console-style or a pino-style logger.
   */
  logger?: AnyLogger;
  /**
   * OpenTelemetry: a `kirimbayar.reconcile.run` span per run (references, applied) and
   * `kirimbayar.reconcile.results` counted by source and outcome (`applied` = a payment found only by
   * reconciliation).
   */
  telemetry?: KirimbayarTelemetry;
  /**
   * The delivery journal (the receivers' own, typically): each run is recorded as one `JournalReconcileRun` (when,
   * how many references, counts by outcome), for the console's per-source view. The events a run applies are
   * journalled by their receivers (origin `reconciliation`) when those have a journal. A journal write that fails
   * is logged and never fails the run.
   */
  journal?: DeliveryJournal;
}

/** How long a run waits for the journal to take its record before it logs it as lost and returns. */
const JOURNAL_WRITE_TIMEOUT_MS = 5_000;

/**
 * What reconciling one reference found.
 * - `applied`: the provider's state had moved on and the event ran now — **a payment found only by
 *   reconciliation** (its webhooks never arrived or all failed): log or alert on it;
 * - `already_applied`: moved on, and a webhook (or an earlier run) had applied it;
 * - `pending`: the provider still has it unpaid/PENDING;
 * - `in_progress`: a webhook of the same event is being handled right now;
 * - `not_handled`: moved on, but no handler listens to that event;
 * - `skipped`: not asked this time (the polling limits, or the run was stopped; see `reason`);
 * - `failed`: the provider call, the handler or the store failed (`error` is typed); other references go on.
 */
export interface ReconcileResult {
  readonly reference: PendingReference;
  readonly outcome: "applied" | "already_applied" | "pending" | "in_progress" | "not_handled" | "skipped" | "failed";
  /** The state the provider reported (`paid`, `EXPIRED`, ...), once asked. */
  readonly providerStatus?: string;
  /** The idempotency key the event was applied under. */
  readonly key?: string;
  readonly reason?: string;
  readonly error?: unknown;
}

/** Options of one {@link Reconciler.reconcile} run. */
export interface ReconcileRunOptions {
  /**
   * Ends the run early: once it aborts, no further reference is asked about, and those not yet asked are reported
   * `skipped` (reason `"stopped"`); the ones in flight finish. For a cron or serverless function with a time limit,
   * `AbortSignal.timeout(...)` a little under it ends the run cleanly before the platform kills it.
   */
  signal?: AbortSignal;
}

/** Asks the provider about payments the app still considers pending and applies what moved on. */
export interface Reconciler {
  /**
   * Reconciles `references` once. Throws a {@link RequestValidationError} before any network call when a
   * reference is malformed or names a source without a configured client and receiver, or `options.signal` is not
   * an `AbortSignal`; otherwise never throws.
   */
  reconcile(references: readonly PendingReference[], options?: ReconcileRunOptions): Promise<ReconcileResult[]>;
  /** Reconciles `pending()` every `every` ms (with jitter) until `stop()`. */
  start(schedule: ReconcilerSchedule): RunningReconciler;
}

/**
 * Creates the reconciler: for each pending reference it asks the provider's status endpoint and, when the
 * payment has moved on (paid, expired, cancelled), runs the same typed event through the same receiver's
 * handlers and idempotency store under the key the webhook would carry. A webhook arriving later is then a
 * duplicate, and a reconciliation after a delivered webhook does nothing. Webhooks get 4 tries over about 21
 * minutes; this catches every payment whose webhooks all failed.
 *
 * @example
 * const reconciler = createReconciler({ receivers: { qris }, clients: { qris: qrisClient } });
 * const running = reconciler.start({
 *   every: 60_000,
 *   pending: async () => (await db.unpaidOrders()).map((o) => ({ source: "qris", history_id: o.historyId })),
 *   onReport: (results) => results.filter((r) => r.outcome === "applied").forEach((r) => alert("missed webhook", r)),
 * });
 * process.on("SIGTERM", () => running.stop());
 */
export function createReconciler(options: ReconcilerOptions): Reconciler {
  const { receivers, clients } = options;
  if (typeof receivers !== "object" || receivers === null || typeof clients !== "object" || clients === null) {
    throw new ConfigurationError("receivers", "createReconciler: receivers and clients are required");
  }
  for (const source of ["qris", "payment"] as const) {
    const receiver = receivers[source];
    if (receiver !== undefined && (receiver.source !== source || !isWebhookReceiver(receiver))) {
      throw new ConfigurationError(
        `receivers.${source}`,
        `createReconciler: receivers.${source} must be a "${source}" webhook receiver`,
      );
    }
  }
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 4));
  const clock = options.clock ?? Date.now;
  const limits = new PollLimits(options.minIntervalPerIdMs ?? 3_000, clock);
  const logger = options.logger === undefined ? console : webhookLoggerOf(options.logger);
  const { tracer } = options.telemetry ?? {};
  const journal = options.journal;
  if (journal !== undefined && typeof journal?.recordReconcileRun !== "function") {
    throw new ConfigurationError("journal", "createReconciler: journal must be a DeliveryJournal");
  }
  const resultCounter = options.telemetry?.meter?.createCounter("kirimbayar.reconcile.results", {
    description: "References reconciled, by source and outcome (applied: found only by reconciliation)",
  });

  async function reconcileOne(reference: PendingReference): Promise<ReconcileResult> {
    const id = idOf(reference);
    const refusal = limits.take(id);
    if (refusal !== undefined) return { reference, outcome: "skipped", reason: refusal };
    let payload: object | undefined;
    let providerStatus: string;
    try {
      if (reference.source === "qris") {
        const { data } = await (clients.qris as QrisStatusSource).getQrisPaymentStatus(id);
        providerStatus = String(data.payment_status ?? "");
        payload = qrisWebhookFromStatus(reference.history_id, data, reference.amount, clock());
      } else {
        const { data } = await (clients.payment as GatewayStatusSource).getPaymentStatus(id);
        providerStatus = String(data.status ?? "");
        payload = gatewayCallbackFromStatus(id, data);
      }
    } catch (error) {
      if (error instanceof RateLimitError) limits.pause(error.retryAfterMs);
      return { reference, outcome: "failed", error };
    }
    if (payload === undefined) return { reference, outcome: "pending", providerStatus };
    const applied = await applyEvent(receivers[reference.source] as ReconcilableReceiver, payload);
    return appliedResult(reference, providerStatus, applied);
  }

  async function reconcile(
    references: readonly PendingReference[],
    runOptions: ReconcileRunOptions = {},
  ): Promise<ReconcileResult[]> {
    assertReferences(references);
    const signal = signalOf(runOptions);
    // A plain loop: no wrapper object per reference when (as usual) every source is configured.
    const unconfigured: ValidationIssue[] = [];
    for (let index = 0; index < references.length; index++) {
      const { source } = references[index] as PendingReference;
      if (receivers[source] === undefined || clients[source] === undefined) {
        unconfigured.push({
          path: String(index),
          message: `no ${source} receiver and client were given to createReconciler`,
        });
      }
    }
    if (unconfigured.length > 0) throw new RequestValidationError(unconfigured, "reconcile");
    // Read only with a journal: the events a run builds are stamped with the same clock.
    const startedAt = journal === undefined ? 0 : clock();
    const span = tracer?.startSpan("kirimbayar.reconcile.run", {
      attributes: { "kirimbayar.references": references.length },
    });
    const results: ReconcileResult[] = new Array(references.length);
    let next = 0;
    const worker = async () => {
      while (next < references.length && signal?.aborted !== true) {
        const index = next++;
        results[index] = await reconcileOne(references[index] as PendingReference);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, references.length) }, worker));
    for (let index = next; index < references.length; index++) {
      results[index] = { reference: references[index] as PendingReference, outcome: "skipped", reason: "stopped" };
    }
    if (resultCounter !== undefined || span !== undefined) {
      let applied = 0;
      let failed = 0;
      for (const result of results) {
        resultCounter?.add(1, { "kirimbayar.source": result.reference.source, "kirimbayar.outcome": result.outcome });
        if (result.outcome === "applied") applied += 1;
        if (result.outcome === "failed") failed += 1;
      }
      span?.setAttribute("kirimbayar.applied", applied);
      span?.setAttribute("kirimbayar.failed", failed);
      span?.setStatus(failed > 0 ? { code: SPAN_ERROR, message: `${failed} failed` } : { code: SPAN_OK });
      span?.end();
    }
    if (journal !== undefined) await journalRun(journal, startedAt, results);
    return results;
  }

  // One record per run; a journal that fails or hangs is logged and never fails the run.
  async function journalRun(journal: DeliveryJournal, startedAt: number, results: ReconcileResult[]): Promise<void> {
    const outcomes: Record<string, number> = {};
    for (const result of results) outcomes[result.outcome] = (outcomes[result.outcome] ?? 0) + 1;
    const run = {
      startedAt,
      finishedAt: clock(),
      references: results.length,
      outcomes,
      instance: journal.instance ?? defaultJournalInstance(),
    };
    try {
      await timeLimited(
        () => journal.recordReconcileRun(run),
        JOURNAL_WRITE_TIMEOUT_MS,
        () => new Error(`The journal did not record the reconciliation run in ${JOURNAL_WRITE_TIMEOUT_MS} ms`),
      );
    } catch (error) {
      logger.error?.("Could not journal a reconciliation run; its results are unchanged", { error });
    }
  }

  function start(schedule: ReconcilerSchedule): RunningReconciler {
    return startSchedule(reconcile, schedule, logger);
  }

  return { reconcile, start };
}

function signalOf(options: ReconcileRunOptions): AbortSignal | undefined {
  const { signal } = options ?? {};
  if (signal === undefined || signal instanceof AbortSignal) return signal;
  throw new RequestValidationError([{ path: "signal", message: "must be an AbortSignal" }], "reconcile");
}

// The report entry of an event the receiver ran, built as one literal (`key` left out when unknown, as before):
// spreading a base object cost two extra allocations and a slow copy for every reference that moved on.
function appliedResult(reference: PendingReference, providerStatus: string, applied: AppliedEvent): ReconcileResult {
  const { key } = applied;
  if (applied.outcome === "invalid" || applied.outcome === "failed") {
    const { error } = applied;
    return key === undefined
      ? { reference, providerStatus, outcome: "failed", error }
      : { reference, providerStatus, key, outcome: "failed", error };
  }
  const { outcome } = applied;
  return key === undefined ? { reference, providerStatus, outcome } : { reference, providerStatus, key, outcome };
}
