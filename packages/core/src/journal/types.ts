// The delivery journal's public types: what one journalled delivery holds, and what a journal (memory, Redis,
// PostgreSQL, MySQL) must do. The receiver writes entries; the console (`@kirimbayar/console`) reads them.
// These names are a stable API: add optional fields, never rename.

import type { TransactionDialect, TransactionSql } from "../idempotency/types.js";
import type { WebhookSource } from "../webhooks/verifiers/types.js";

/** Where a journalled event came from: a webhook delivery, the reconciler, an inbox worker, or a replay. */
export type JournalOrigin = "webhook" | "reconciliation" | "inbox" | "replay";

/**
 * What a delivery came to:
 * - `processed`: the handlers ran and the event is recorded as done;
 * - `duplicate`: an earlier delivery had already processed it (answered 200, nothing ran);
 * - `in_progress`: another delivery held it at that moment (409);
 * - `queued`: an inbox-mode receiver queued it for a worker (200);
 * - `not_handled`: no handler listens to the event (200);
 * - `refused`: the request was refused before any handler (401 verification, 400 body, 413, 415, 405, 408);
 * - `failed`: a handler or the store failed, or the handlers ran out of time (500, 503).
 */
export type JournalOutcome =
  | "processed"
  | "duplicate"
  | "in_progress"
  | "queued"
  | "not_handled"
  | "refused"
  | "failed";

/**
 * The references a person searches by, as the event carries them (wire names, as the spec writes them). Untrusted
 * text from outside: render it as text only.
 */
export interface JournalReferences {
  /** QR payments. */
  readonly qris_history_id?: string;
  /** Payment gateway. */
  readonly payment_id?: string;
  readonly order_id?: string;
  /** Order status webhooks. */
  readonly order_no?: string;
  readonly cnote?: string;
}

/** One journalled delivery (or one event applied by reconciliation, an inbox worker or a replay). */
export interface JournalEntry {
  /** The journal's own id of the entry (unique within the journal; set by the journal when it stores it). */
  readonly id?: string;
  /** When the delivery was answered (epoch ms). */
  readonly at: number;
  readonly source: WebhookSource;
  readonly origin: JournalOrigin;
  /** The event's name (`payment.success`, `payment.callback`, `order.status`), once the body parsed. */
  readonly event?: string;
  /** The state the event reports (`paid`, `EXPIRED`, an order status …), where it has one. */
  readonly state?: string;
  readonly references: JournalReferences;
  /** The idempotency key the delivery was deduplicated on, once known. */
  readonly idempotencyKey?: string;
  /** 1-based attempt number where the store (or the inbox) tracks it. */
  readonly attempt?: number;
  /** The HTTP status the delivery was answered with (for reconciliation and inbox: the status it stands for). */
  readonly httpStatus: number;
  readonly outcome: JournalOutcome;
  /** How long the handlers ran (ms), when they ran: from their start until the delivery was answered. */
  readonly handlerMs?: number;
  /** A short, redacted summary of the error (≤ 500 characters), when the delivery failed or was refused. */
  readonly error?: string;
  /** Which process answered (the journal's `instance` option; default host name and pid where known). */
  readonly instance: string;
  /** The raw body, redacted, only when the journal was built with `recordBodies: true`. */
  readonly body?: string;
}

/** What a reconciler run found, journalled for the console's per-source view. */
export interface JournalReconcileRun {
  readonly id?: string;
  readonly startedAt: number;
  readonly finishedAt: number;
  /** References asked about. */
  readonly references: number;
  /** Counts by outcome (`applied` = payments found only by reconciliation). */
  readonly outcomes: Readonly<Record<string, number>>;
  readonly instance: string;
}

/** A search of the journal. */
export interface JournalQuery {
  /** Any reference (history id, payment id, order id, order no, cnote) or an idempotency key; exact match. */
  readonly reference?: string;
  readonly source?: WebhookSource;
  /** Only entries at or after this time (epoch ms). */
  readonly since?: number;
  /** Only entries before this time (epoch ms). */
  readonly before?: number;
  readonly outcomes?: readonly JournalOutcome[];
  /** At most this many entries, newest first (default 100, at most 1,000). */
  readonly limit?: number;
}

/**
 * Deliveries of one source over a time window, for the console's per-source view. `summarize` answers one per
 * source (`qris`, `payment`, `orders`), zeros included, in that order.
 */
export interface JournalSourceSummary {
  readonly source: WebhookSource;
  /** Entries of every origin since the window's start. */
  readonly deliveries: number;
  /** Deliveries answered 5xx. */
  readonly failures: number;
  /** Refused deliveries (4xx other than 409). */
  readonly refused: number;
  /** Duplicates of a processed or queued event (`duplicate`) and of one still in progress (`in_progress`, 409). */
  readonly duplicates: number;
  /**
   * The last delivery answered 2xx with origin `webhook` (epoch ms), among all the entries kept (not only the
   * window's): a source silent for hours stands out.
   */
  readonly lastSuccessAt: number | undefined;
}

/**
 * Where a receiver journals its deliveries (opt-in: `createWebhookReceiver({ journal })`). Writing never makes a
 * delivery fail: a journal write that fails is reported to the receiver's `onError` (stage `"journal"`) and the
 * delivery's answer is unchanged. Journals keep entries for a bounded time (`retentionMs`) or count.
 *
 * The memory journal (`@kirimbayar/core/journal`) is for development; `@kirimbayar/core/postgres`,
 * `@kirimbayar/core/mysql` and `@kirimbayar/core/redis` keep it beside the idempotency records.
 */
export interface DeliveryJournal {
  /** `"memory"`, `"postgres"`, `"mysql"`, `"redis"`. */
  readonly kind: string;
  /**
   * The receiver's journal stage (`journalStage` of `@kirimbayar/core/journal`), brought by the journal so that an
   * app without a journal bundles none of its code, as an inbox brings its `inboxStage`. Every journal sets it.
   */
  readonly journalStage: JournalStage;
  /** Which process writes (`JournalEntry.instance`); default: the host name (`HOSTNAME`) and pid where known. */
  readonly instance?: string;
  /** Whether entries carry the raw body, redacted (default `false`). */
  readonly recordBodies?: boolean;
  /**
   * Records entries. Journals may batch: the promise resolves once the entries are durable (or rejects with why
   * they are not). The receiver calls it without `transaction`; the SQL journals take one you hold yourself (a
   * driver connection holding it, or your binding's transaction object) and write through it.
   */
  record(entries: readonly JournalEntry[], transaction?: unknown): Promise<void>;
  /**
   * The database the journal's statements are for, when it keeps entries in SQL (`"postgres"`, `"mysql"`): with
   * `idempotency: { transactional: true }`, a receiver refuses when it is built a journal whose dialect is not the
   * store's, and one without {@link DeliveryJournal.recordInTransaction} (unless `journalOutsideTransaction: true`).
   */
  readonly dialect?: TransactionDialect;
  /**
   * Records a transactional delivery's entry as a statement of the delivery's own transaction (`transaction` runs
   * it on the store's connection), so it commits or rolls back with the effect whatever connection the journal was
   * given. Set by the PostgreSQL and MySQL journals.
   *
   * A write that fails (or does not answer within the store's operation time limit) is safe: the receiver rolls
   * that transaction back and runs the delivery again in a new one without the journal in it (a transaction whose
   * statement failed may not commit: PostgreSQL's COMMIT then rolls back without an error), then records the entry
   * outside. So a journal needs no SAVEPOINT around its insert.
   */
  recordInTransaction?(entries: readonly JournalEntry[], transaction: TransactionSql): Promise<void>;
  /** Entries matching `query`, newest first. */
  search(query: JournalQuery): Promise<JournalEntry[]>;
  /** Per-source counts since `since` (epoch ms). */
  summarize(since: number): Promise<JournalSourceSummary[]>;
  /** Records one reconciler run. */
  recordReconcileRun(run: JournalReconcileRun): Promise<void>;
  /** The latest reconciler runs, newest first (default 20). */
  reconcileRuns(limit?: number): Promise<JournalReconcileRun[]>;
  /** Deletes entries past retention; returns how many. */
  deleteExpired(): Promise<number>;
  /** Writes what is still buffered and stops timers (not the connection you passed). */
  close(): Promise<void>;
}

/** What the console shows of an idempotency record (`IdempotencyStore.inspect`). Never the raw store row. */
export interface IdempotencyRecordView {
  readonly key: string;
  readonly state: "in_progress" | "completed" | "released";
  readonly attempt?: number;
  /** When the current lease ends (in progress) or the record expires (epoch ms), where the store tells. */
  readonly expiresAt?: number;
  /** When the event was recorded as done (epoch ms), where the store tells. */
  readonly completedAt?: number;
}

/**
 * The receiver's journal stage, opaque to the journal that carries it ({@link DeliveryJournal.journalStage}). A
 * journal of your own sets `journalStage` to the one `@kirimbayar/core/journal` exports.
 */
export interface JournalStage {
  readonly kind: "kirimbayar.journal-stage";
}
