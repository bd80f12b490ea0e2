import { processInboxMessage } from "@kirimbayar/core";
import {
  type AnyLogger,
  type AnyWebhookReceiver,
  type AppliedEvent,
  type InboxMessage,
  type KirimbayarTelemetry,
  type ObservableResultLike,
  type WebhookSource,
  webhookLoggerOf,
} from "@kirimbayar/core/webhooks";
import { type InboxRetryPolicy, nextRetryDelay, resolveRetryPolicy } from "./retry-policy.js";
import type { InboxConsumer, InboxDelivery, InboxQueue, InboxVerdict } from "./types.js";

/**
 * What the worker runs events through: a `WebhookReceiver` of core (through core's `processInboxMessage`), or an
 * object with a `processInboxMessage` of its own, e.g. one that counts tries around core's.
 */
export type InboxReceiver =
  | AnyWebhookReceiver
  | { readonly source: WebhookSource; processInboxMessage(message: InboxMessage): Promise<AppliedEvent> };

/** Options of {@link startInboxWorker}. */
export interface InboxWorkerOptions {
  inbox: InboxQueue;
  /** The receivers whose handlers run the events (the same ones, with the same idempotency store, as the app's). */
  receivers: { qris?: InboxReceiver; payment?: InboxReceiver; orders?: InboxReceiver };
  /** Events processed at once (default 10). */
  concurrency?: number;
  /** Backoff and how long to retry before an event becomes a dead letter (default: 1 s doubling to 1 h, 72 h). */
  retry?: InboxRetryPolicy;
  /** Epoch ms; default `Date.now`. */
  clock?: () => number;
  /** Told about each retry and dead letter (default `console`): console-style or pino-style. */
  logger?: AnyLogger;
  /**
   * OpenTelemetry: a `kirimbayar.inbox.process` span per try, `kirimbayar.inbox.events` by source and verdict
   * (done, retry, dead), `kirimbayar.inbox.dead_letters`, and gauges of the queue: `kirimbayar.inbox.depth` by
   * state (waiting, active, dead) and `kirimbayar.inbox.oldest_age` (ms).
   */
  telemetry?: KirimbayarTelemetry;
}

/** A running worker. */
export interface InboxWorker {
  /**
   * Takes no new events (those already fetched and not started go back to the queue at once, due now) and waits up
   * to `timeoutMs` (default 30 s) for those in flight; the ones still running then are handed back as
   * {@link InboxWorker.abort} does. In a graceful shutdown (`createGracefulShutdown` of `@kirimbayar/core/shutdown`)
   * use it as the `stop` step and `abort` as the `abort` step, with a `timeoutMs` above the shutdown's `graceMs`
   * (the default is): the shutdown releases the claims of the events still running first, so that another worker
   * applies them as soon as they are back.
   */
  stop(options?: { timeoutMs?: number }): Promise<void>;
  /**
   * Hands every event still running back to the queue at once, due now (a retry of the same try count, noted as
   * "the worker stopped"), without waiting for its handlers; what they do later is not recorded. A pending
   * {@link InboxWorker.stop} then resolves as soon as the queue has taken them back. Their idempotency claims are
   * not this call's: release them first (the graceful shutdown does), or another worker finds them in progress
   * until their lease ends.
   */
  abort(): Promise<void>;
}

/** How long `stop()` gives the queue, past its time limit, to take back the events it hands back. */
const HAND_BACK_MS = 5_000;

/**
 * Starts a worker: takes queued events from `inbox` and runs each through its source's receiver
 * (`processInboxMessage`: the same handlers and idempotency store as direct deliveries, so nothing is applied
 * twice). A failing event is retried with exponential backoff for the retry period (default 72 h), then kept as a
 * dead letter; an event that fails the schema is a dead letter at once (replay it after fixing the cause).
 *
 * @example
 * const worker = await startInboxWorker({ inbox, receivers: { qris } });
 * process.on("SIGTERM", () => worker.stop());
 */
export async function startInboxWorker(options: InboxWorkerOptions): Promise<InboxWorker> {
  const { inbox, receivers } = options;
  const policy = resolveRetryPolicy(options.retry);
  const clock = options.clock ?? Date.now;
  const logger = options.logger === undefined ? console : webhookLoggerOf(options.logger);
  const concurrency = options.concurrency ?? 10;
  if (!(Number.isInteger(concurrency) && concurrency > 0))
    throw new TypeError("concurrency must be a positive integer");

  const { tracer, meter } = options.telemetry ?? {};
  const events = meter?.createCounter("kirimbayar.inbox.events", { description: "Inbox tries, by source and verdict" });
  const deadLetters = meter?.createCounter("kirimbayar.inbox.dead_letters", {
    description: "Events moved to the dead letters",
  });
  const depth = meter?.createObservableGauge("kirimbayar.inbox.depth", {
    description: "Events in the inbox, by state",
  });
  const oldestAge = meter?.createObservableGauge("kirimbayar.inbox.oldest_age", {
    description: "Age of the oldest waiting event",
    unit: "ms",
  });
  const observeDepth = async (result: ObservableResultLike) => {
    const stats = await inbox.stats().catch(() => undefined);
    if (stats === undefined) return;
    result.observe(stats.waiting, { "kirimbayar.inbox.state": "waiting", "kirimbayar.inbox": inbox.name });
    result.observe(stats.active, { "kirimbayar.inbox.state": "active", "kirimbayar.inbox": inbox.name });
    result.observe(stats.deadLetters, { "kirimbayar.inbox.state": "dead", "kirimbayar.inbox": inbox.name });
  };
  const observeAge = async (result: ObservableResultLike) => {
    const stats = await inbox.stats().catch(() => undefined);
    result.observe(stats?.oldestWaitingAgeMs ?? 0, { "kirimbayar.inbox": inbox.name });
  };
  depth?.addCallback(observeDepth);
  oldestAge?.addCallback(observeAge);

  async function decideTraced(delivery: InboxDelivery): Promise<InboxVerdict> {
    const span = tracer?.startSpan("kirimbayar.inbox.process", {
      kind: 4, // CONSUMER
      attributes: {
        "kirimbayar.source": delivery.message.source,
        "kirimbayar.inbox": inbox.name,
        "kirimbayar.attempt": delivery.attempt,
      },
    });
    const verdict = await decide(delivery);
    events?.add(1, { "kirimbayar.source": delivery.message.source, "kirimbayar.verdict": verdict.kind });
    if (verdict.kind === "dead") deadLetters?.add(1, { "kirimbayar.source": delivery.message.source });
    if (span !== undefined) {
      span.setAttribute("kirimbayar.verdict", verdict.kind);
      span.setStatus(verdict.kind === "done" ? { code: 1 } : { code: 2, message: verdict.error });
      span.end();
    }
    return verdict;
  }

  async function decide(delivery: InboxDelivery): Promise<InboxVerdict> {
    const { message } = delivery;
    const receiver = receivers[message.source];
    let failure: string;
    if (receiver === undefined) {
      failure = `no ${String(message.source)} receiver was given to this worker`;
    } else {
      const result =
        "processInboxMessage" in receiver
          ? await receiver.processInboxMessage(message)
          : await processInboxMessage(receiver, message, {
              attempt: delivery.attempt,
              // The engines restart the retry period when a dead letter is replayed: its tries are journalled as such.
              replay: delivery.periodStartedAt !== message.receivedAt,
            });
      switch (result.outcome) {
        case "applied":
        case "already_applied":
        case "not_handled":
          return { kind: "done" };
        case "invalid":
          logger.error?.("An inbox event fails its schema; kept as a dead letter", { key: message.key });
          return { kind: "dead", error: errorText(result.error) };
        case "in_progress":
          failure = "another delivery of this event is being processed";
          break;
        default:
          failure = errorText(result.error);
      }
    }
    const delayMs = nextRetryDelay(policy, delivery.attempt, delivery.periodStartedAt, clock());
    if (delayMs === undefined) {
      logger.error?.("An inbox event failed for its whole retry period; kept as a dead letter", {
        key: message.key,
        attempt: delivery.attempt,
        error: failure,
      });
      return { kind: "dead", error: failure };
    }
    logger.warn?.("An inbox event failed; it will be retried", {
      key: message.key,
      attempt: delivery.attempt,
      delayMs,
    });
    return { kind: "retry", error: failure, delayMs };
  }

  // Shutdown: once stopping, an event the engine still hands over is given back untouched; once aborted, every
  // decision still pending is answered at once with a retry, due now.
  let stopping = false;
  const pending = new Set<(verdict: InboxVerdict) => void>();
  const handBack = (why: string): InboxVerdict => ({ kind: "retry", error: why, delayMs: 0 });
  const decideOne = options.telemetry ? decideTraced : decide;
  const decideUnlessStopping = (delivery: InboxDelivery): Promise<InboxVerdict> => {
    if (stopping) return Promise.resolve(handBack("the worker stopped before running this event"));
    return new Promise<InboxVerdict>((resolve, reject) => {
      pending.add(resolve);
      decideOne(delivery).then(
        (verdict) => {
          pending.delete(resolve);
          resolve(verdict);
        },
        (error: unknown) => {
          pending.delete(resolve);
          reject(error);
        },
      );
    });
  };
  const abort = async () => {
    stopping = true;
    for (const resolve of pending) resolve(handBack("the worker stopped while running this event"));
    pending.clear();
  };

  const consumer: InboxConsumer = await inbox.consume(decideUnlessStopping, { concurrency });
  let stopped: Promise<void> | undefined;
  return {
    stop(stopOptions = {}) {
      const timeoutMs = stopOptions.timeoutMs ?? 30_000;
      if (!(typeof timeoutMs === "number" && Number.isFinite(timeoutMs) && timeoutMs >= 0)) {
        return Promise.reject(new TypeError("stop({ timeoutMs }): timeoutMs must be a non-negative number"));
      }
      stopped ??= (async () => {
        stopping = true;
        const limit = setTimeout(() => void abort(), timeoutMs);
        try {
          await consumer.stop({ timeoutMs: timeoutMs + HAND_BACK_MS });
        } finally {
          clearTimeout(limit);
          depth?.removeCallback?.(observeDepth);
          oldestAge?.removeCallback?.(observeAge);
        }
      })();
      return stopped;
    },
    abort,
  };
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === "string" ? error : "unknown error";
}
