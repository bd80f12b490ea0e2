import type { InboxEnqueueResult, InboxMessage, WebhookInbox } from "@kirimbayar/core/webhooks";

export type { InboxEnqueueResult, InboxMessage } from "@kirimbayar/core/webhooks";

/** A queued event as an engine hands it to the worker: the message, which try this is, and the tries before it. */
export interface InboxDelivery {
  readonly message: InboxMessage;
  /** 1 for the first try. */
  readonly attempt: number;
  /** Start of the retry period: when the webhook arrived, or when the event was last replayed. */
  readonly periodStartedAt: number;
}

/** One failed try of a queued event. */
export interface InboxAttempt {
  /** Epoch ms. */
  readonly at: number;
  readonly attempt: number;
  /** The error's message (never its stack: handlers' errors may quote data, not secrets, but stay short). */
  readonly error: string;
}

/** What the worker decided about one delivery; the engine carries it out. */
export type InboxVerdict =
  | { readonly kind: "done" }
  | { readonly kind: "retry"; readonly error: string; readonly delayMs: number }
  | { readonly kind: "dead"; readonly error: string };

/** An event that ran out of tries (or can never succeed), kept until replayed or removed. */
export interface DeadLetter {
  /** The engine's id of the dead letter (pass it to `show` and `replay`). */
  readonly id: string;
  readonly message: InboxMessage;
  /** Every failed try, oldest first. */
  readonly attempts: readonly InboxAttempt[];
  /** When it was moved to the dead letters (epoch ms). */
  readonly deadAt: number;
}

/** Counts of an inbox, for dashboards and telemetry. */
export interface InboxStats {
  /** Queued and waiting for a worker, including those waiting for their next try. */
  readonly waiting: number;
  /** Being processed now. */
  readonly active: number;
  readonly deadLetters: number;
  /** Age of the oldest waiting event (ms), if any. */
  readonly oldestWaitingAgeMs: number | undefined;
}

/** A running consumer; `stop()` takes no new events and waits for the ones in flight (or hands them back). */
export interface InboxConsumer {
  stop(options?: { timeoutMs?: number }): Promise<void>;
}

/** Options of {@link InboxQueue.consume}. */
export interface ConsumeOptions {
  /** Events processed at once by this consumer (default 10). */
  concurrency?: number;
}

/**
 * A durable queue behind an inbox-mode receiver: `createPgBossInbox` (PostgreSQL) and `createBullMqInbox` (Redis)
 * are the two engines. Every engine keeps one job per idempotency key while it is queued or running, retries a
 * failed one after the delay the worker asks for, and keeps dead letters until they are replayed.
 */
export interface InboxQueue extends WebhookInbox {
  /** `"pg-boss"` or `"bullmq"`. */
  readonly engine: string;
  /** The queue's name. */
  readonly name: string;
  /** Writes `message` durably under its key; `"duplicate"` when that key is already queued or running. */
  enqueue(message: InboxMessage): Promise<InboxEnqueueResult>;
  /** Starts taking events and passing them to `decide`, then carries out its verdict. */
  consume(decide: (delivery: InboxDelivery) => Promise<InboxVerdict>, options?: ConsumeOptions): Promise<InboxConsumer>;
  /** Dead letters, newest first (at most `limit`, default 100). */
  listDeadLetters(options?: { limit?: number }): Promise<DeadLetter[]>;
  /** One dead letter, with every try's error. */
  getDeadLetter(id: string): Promise<DeadLetter | undefined>;
  /** Queues a dead letter again with a fresh retry period; `false` if there is no such dead letter. */
  replayDeadLetter(id: string): Promise<boolean>;
  /** Replays every dead letter; returns how many. */
  replayAllDeadLetters(): Promise<number>;
  stats(): Promise<InboxStats>;
  /** Closes what the engine opened itself (not the pg-boss instance or Redis connection you passed). */
  close(): Promise<void>;
}
