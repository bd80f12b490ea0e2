// The public types of a webhook receiver: its options, what it answers `applyEvent` with, and the receiver itself.

import type { CryptoProvider } from "../crypto/types.js";
import type { IdempotencyStore, TransactionalIdempotencyStore } from "../idempotency/types.js";
import type { DeliveryJournal } from "../journal/types.js";
import type { WebhookTelemetry } from "../telemetry/types.js";
import type { WebhookContext } from "./context.js";
import type { WebhookHttpRequest, WebhookHttpResponse } from "./contract.js";
import type { WebhookInbox } from "./inbox.js";
import type { AnyLogger } from "./logger.js";
import type { WebhookHandler } from "./registry.js";
import type { OrderStatus, OrderStatusWebhook } from "./schemas.js";
import type { WebhookEventFor, WebhookEventName, WebhookEventOf } from "./sources.js";
import type { WebhookSource, WebhookVerifier } from "./verifiers/types.js";

/** Idempotency settings of a receiver. */
export interface WebhookIdempotencyOptions<S extends WebhookSource> {
  /** Default: a `MemoryIdempotencyStore` of this receiver (one process only). */
  store?: IdempotencyStore;
  /** How long a claim protects a running handler (default 60 s). Keep it above your slowest handler. */
  leaseMs?: number;
  /** How long a completed event is remembered (default 24 h, far beyond the providers' retry windows). */
  retentionMs?: number;
  /**
   * How long the handlers of one delivery may run (default: `leaseMs`, past which the claim no longer protects
   * them). A delivery still running then is answered 500 so the provider retries, `ctx.signal` is aborted, and:
   * - without transactional handlers, the claim stays until the handlers end: a late success is recorded as
   *   completed (the retry is then a duplicate), a late failure releases the claim;
   * - with transactional handlers, the transaction is abandoned at once (a pooled connection is closed, a PGlite
   *   transaction rolled back, so nothing the handler sends later can commit) and the retry applies the event; on
   *   a single pg `client`, which is the app's own connection, the transaction commits or rolls back when the
   *   handlers end, as it would have.
   */
  handlerTimeoutMs?: number;
  /**
   * Your own key for an event; return `undefined` to use the default (QR: event + history id; orders: order_no +
   * cnote + status; payment: payment_id + status, else the SHA-256 of the raw body).
   */
  key?: (event: WebhookEventOf<S>) => string | undefined;
  /**
   * Time limit of one store operation (claim, complete, release), default 5,000 ms. A claim that runs out is
   * answered 503 and runs nothing; a completion that runs out is tried again (see `completionRetry`).
   */
  operationTimeoutMs?: number;
  /**
   * Pauses between tries of recording a completion that failed (defaults 25 ms, doubling up to 1,000 ms, with
   * jitter, pauses at most a tenth of the lease). The receiver keeps trying for as long as the claim's lease lasts
   * and half a lease beyond before it answers, because a completion that is not recorded lets a redelivery after
   * the lease run the handlers a second time.
   */
  completionRetry?: { minDelayMs?: number; maxDelayMs?: number };
  /**
   * Transactional handlers (the store must open transactions: a `TransactionalIdempotencyStore`): each
   * delivery runs in one store transaction that claims the event, hands itself to the handlers as
   * `ctx.transaction`, records the completion and commits, and only then is answered 200. A handler error or a
   * crash rolls back the effect and the record together, so the event is applied exactly once by a later
   * redelivery or the reconciler. Default `false`.
   */
  transactional?: boolean;
}

/**
 * Idempotency settings of a receiver whose handlers run inside the store's transaction: the store opens
 * transactions whose object (`Tx`) the handlers get as `ctx.transaction`, typed.
 */
export type TransactionalIdempotencyOptions<S extends WebhookSource, Tx> = WebhookIdempotencyOptions<S> & {
  store: IdempotencyStore & TransactionalIdempotencyStore<Tx>;
  transactional: true;
};

/** Options of {@link createWebhookReceiver}. */
export interface WebhookReceiverOptions<S extends WebhookSource> {
  /** `"qris"` (QR payment events), `"payment"` (payment gateway callback) or `"orders"` (order status). */
  source: S;
  /** Verifiers that must all pass. Required unless `insecureNoVerification` is set. */
  verify?: readonly WebhookVerifier[];
  /** Accept unverified deliveries (local development only); the receiver warns once. */
  insecureNoVerification?: boolean;
  idempotency?: WebhookIdempotencyOptions<S>;
  /** Largest accepted body (default 65,536 bytes); larger ones get 413. */
  maxBodyBytes?: number;
  /**
   * How long an adapter (and `fetch`) waits for the whole body before answering 408 (default 10,000 ms): a body
   * that stalls or is shorter than its `Content-Length` never holds a connection for longer.
   */
  bodyReadTimeoutMs?: number;
  /** Accepted methods. Defaults: `["POST"]`, and `["POST", "PUT"]` for orders (the spec's sample uses PUT). */
  methods?: readonly string[];
  /**
   * Whether a delivery without a `Content-Type` header is accepted (default `true`: the providers do not promise
   * the header, and the body must still verify and parse). A present header must be JSON, else 415.
   */
  allowMissingContentType?: boolean;
  /** Refuse bodies whose JSON objects repeat a key (default `true`: the meaning of such a body is ambiguous). */
  rejectDuplicateKeys?: boolean;
  /** Default: `node:crypto` on Node, Web Crypto elsewhere. */
  crypto?: CryptoProvider;
  /** Epoch milliseconds; default `Date.now`. */
  clock?: () => number;
  /**
   * Where the receiver reports what went wrong (default `console`): a console-style logger (message, details) or a
   * pino-style one (fields, message), passed as it is. Details name the source, the key and the error; never a
   * secret.
   */
  logger?: AnyLogger;
  /**
   * Inbox mode: a verified, parsed event is written to this queue under its idempotency key and answered 200 as
   * soon as it is written (503 when the queue cannot take it), instead of running the handlers in the request.
   * Workers run it later through `processInboxMessage(receiver, message)` of `@kirimbayar/core` (with the same
   * handlers and idempotency store), retrying for as long as needed. Verification, parsing and the size and type checks are
   * unchanged. `@kirimbayar/inbox` has queues on pg-boss and BullMQ.
   */
  inbox?: WebhookInbox;
  /**
   * OpenTelemetry, as `webhookTelemetry({ tracer, meter })` of `@kirimbayar/core/telemetry` makes it: a span per
   * delivery, deliveries counted by source, outcome and status, duplicates, and the handlers' duration. Without it
   * the receiver does no telemetry work at all, and a bundle without `webhookTelemetry` holds none of its code.
   */
  telemetry?: WebhookTelemetry;
  /**
   * The delivery journal (opt-in; off by default): one entry per delivery, whether answered by `handle()`, applied
   * by `applyEvent` (origin `reconciliation`) or by `processInboxMessage` (origin `inbox`) — its source, event,
   * state, references, idempotency key, attempt, answer, outcome, handler time and a redacted error summary.
   * `MemoryDeliveryJournal` of `@kirimbayar/core/journal` for development; the PostgreSQL, MySQL and Redis entries
   * have durable ones. Every other entry is written after the answer, never awaited. A journal write that fails
   * never changes an answer: it is logged and reported to `onError` with stage `"journal"`. Without it the receiver
   * does no journal work, and a bundle without a journal holds none of its code.
   *
   * With transactional handlers (`idempotency: { transactional: true }`) the processed entry is a statement of the
   * delivery's own transaction, run on the store's connection whatever connection the journal was given, so it
   * commits with the effect: the journal must be the SQL journal of the store's database (`PostgresDeliveryJournal`
   * beside `PostgresIdempotencyStore`, `MysqlDeliveryJournal` beside `MysqlIdempotencyStore`). Any other journal
   * (memory, Redis, another database's) is refused when the receiver is built, unless `journalOutsideTransaction`.
   * The verifiers' secrets (tokens, callback keys, HMAC secrets) are masked in every entry as it is recorded.
   *
   * @example
   * const journal = new MemoryDeliveryJournal();
   * const qris = createWebhookReceiver({ source: "qris", verify, journal });
   * await journal.search({ reference: "h-1" });
   */
  journal?: DeliveryJournal;
  /**
   * `true` lets a transactional receiver journal into a journal that cannot write in the delivery's transaction
   * (memory, Redis, another database's): its entries are then all written after the answer, so a process that
   * stops between the commit and that write leaves an applied event without its entry. Default `false`: such a
   * journal is refused when the receiver is built. No effect without `idempotency: { transactional: true }`, nor
   * with an SQL journal of the store's own database, which always writes in the transaction (the better place).
   *
   * @example
   * createWebhookReceiver({ source: "qris", verify, idempotency: { store, transactional: true }, journal: redisJournal, journalOutsideTransaction: true });
   */
  journalOutsideTransaction?: boolean;
}

/** Where in the pipeline an error passed to `onError` happened. */
export type WebhookErrorStage = "request" | "idempotency" | "inbox" | "handler" | "journal";

/** Second argument of an `onError` handler. */
export interface WebhookErrorContext {
  readonly source: WebhookSource;
  readonly stage: WebhookErrorStage;
  /** Status the delivery was answered with (200 when only the completion record failed after the handler ran). */
  readonly status: number;
  /** The parsed event, once known. */
  readonly event?: unknown;
  /** The handler context, once the event was claimed. */
  readonly context?: WebhookContext;
}

/**
 * Called when a handler throws, the idempotency store fails or the adapter passed no raw body.
 *
 * @example
 * receiver.onError((error, { stage, status }) => logger.error({ stage, status, error }));
 */
export type WebhookErrorHandler = (error: unknown, ctx: WebhookErrorContext) => unknown;

/**
 * A framework-neutral webhook endpoint for one source, with handlers typed for that source. Adapters call
 * {@link SourceWebhookReceiver.handle}; Web-standard runtimes can mount {@link SourceWebhookReceiver.fetch} directly.
 *
 * @example
 * qris.on("payment.success", async (event, ctx) => { await orders.markPaid(event.data.qris_history_id) });
 */
export interface SourceWebhookReceiver<S extends WebhookSource, Tx = unknown> {
  readonly source: S;
  /** Number of registered handlers (excluding `onError`); 0 means every delivery is answered 500. */
  readonly handlerCount: number;
  /** Largest body accepted; adapters read at most this many bytes (+1 to detect an oversized body). */
  readonly maxBodyBytes: number;
  /** How long adapters wait for the whole body before answering 408. */
  readonly bodyReadTimeoutMs: number;
  /** Runs `handler` for one event name (`payment.success`, `payment.expired`, `payment.callback`, `order.status`). */
  on<E extends WebhookEventName<S>>(event: E, handler: WebhookHandler<WebhookEventFor<S, E>, Tx>): this;
  /** Orders only: runs `handler` for one status (case-insensitive; the set is open). */
  onOrderStatus(status: OrderStatus, handler: WebhookHandler<OrderStatusWebhook, Tx>): this;
  /** Runs `handler` for every event of this source, after the specific handlers. */
  onAny(handler: WebhookHandler<WebhookEventOf<S>, Tx>): this;
  onError(handler: WebhookErrorHandler): this;
  /** Processes one delivery; never throws. */
  handle(request: WebhookHttpRequest): Promise<WebhookHttpResponse>;
  /** Web-standard entry: reads the body (bounded by `maxBodyBytes`) and answers a `Response`. */
  fetch(request: Request, info?: { remoteAddress?: string }): Promise<Response>;
}

/** What `applyEvent` and `processInboxMessage` (of `@kirimbayar/core`) did with an event. */
export interface AppliedEvent {
  /**
   * `applied`: the handlers ran and completed now; `already_applied`: an earlier delivery completed it;
   * `in_progress`: another delivery holds it right now; `not_handled`: no handler listens to this event;
   * `invalid`: the payload failed the source's schema; `failed`: a handler or the store failed (see `error`).
   */
  readonly outcome: "applied" | "already_applied" | "in_progress" | "not_handled" | "invalid" | "failed";
  /** The idempotency key, once known. */
  readonly key?: string;
  /** Why it failed or was invalid. */
  readonly error?: unknown;
}

/**
 * A receiver of any source, as adapters and other generic code hold it: every {@link SourceWebhookReceiver} is
 * one. Handlers registered through it receive any source's event type.
 *
 * @example
 * function mount(app: Express, path: string, receiver: AnyWebhookReceiver) { ... receiver.handle(request) ... }
 */
export interface AnyWebhookReceiver {
  readonly source: WebhookSource;
  readonly handlerCount: number;
  readonly maxBodyBytes: number;
  readonly bodyReadTimeoutMs: number;
  on(event: string, handler: WebhookHandler<WebhookEventOf<WebhookSource>>): this;
  onOrderStatus(status: OrderStatus, handler: WebhookHandler<OrderStatusWebhook>): this;
  onAny(handler: WebhookHandler<WebhookEventOf<WebhookSource>>): this;
  onError(handler: WebhookErrorHandler): this;
  handle(request: WebhookHttpRequest): Promise<WebhookHttpResponse>;
  fetch(request: Request, info?: { remoteAddress?: string }): Promise<Response>;
}

/**
 * The receiver {@link createWebhookReceiver} returns: typed for its source (`WebhookReceiver<"qris">`), or, without
 * a type argument, a receiver of any source ({@link AnyWebhookReceiver}) to which every typed receiver is
 * assignable.
 *
 * @example
 * const receivers: WebhookReceiver[] = [qris, payment, orders];
 */
export type WebhookReceiver<S extends WebhookSource = WebhookSource> = WebhookSource extends S
  ? AnyWebhookReceiver
  : SourceWebhookReceiver<S>;
