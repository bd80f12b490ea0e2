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
  /** Takes no new events and waits (up to `timeoutMs`, default 30 s) for those in flight; the rest come back later. */
  stop(options?: { timeoutMs?: number }): Promise<void>;
}

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

  const consumer: InboxConsumer = await inbox.consume(options.telemetry ? decideTraced : decide, { concurrency });
  return {
    async stop(stopOptions) {
      await consumer.stop(stopOptions);
      depth?.removeCallback?.(observeDepth);
      oldestAge?.removeCallback?.(observeAge);
    },
  };
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === "string" ? error : "unknown error";
}
