import { defaultCryptoProvider } from "../crypto/index.js";
import type { CryptoProvider } from "../crypto/types.js";
import { MemoryIdempotencyStore } from "../idempotency/memory.js";
import type {
  ClaimResult,
  IdempotencyStore,
  MaybePromise,
  TransactionalIdempotencyStore,
} from "../idempotency/types.js";
import type { KirimbayarTelemetry } from "../telemetry/types.js";
import { WebhookTelemetry } from "../telemetry/webhook-telemetry.js";
import { timerDelay } from "../timer-delay.js";
import { RequestBody } from "./body.js";
import { DeliveryContext, type ReceivedDelivery, type WebhookContext } from "./context.js";
import type { WebhookHttpRequest, WebhookHttpResponse } from "./contract.js";
import { WebhookConfigurationError, WebhookProcessingError } from "./errors.js";
import { fetchEntry } from "./fetch.js";
import type { InboxEnqueueResult, InboxMessage, WebhookInbox } from "./inbox.js";
import { type AnyLogger, type WebhookLogger, webhookLoggerOf } from "./logger.js";
import { claimKey } from "./pipeline/claim.js";
import { completeClaim } from "./pipeline/complete.js";
import { enqueueEvent } from "./pipeline/enqueue.js";
import { handlerTimeoutError, TIMED_OUT, withinHandlerTimeLimit } from "./pipeline/handler-time-limit.js";
import { type IdempotencySettings, monotonicNow } from "./pipeline/idempotency-settings.js";
import { type KeyCheck, parseEvent } from "./pipeline/parse.js";
import { runHandlers } from "./pipeline/run.js";
import { storeOperation } from "./pipeline/store-operation.js";
import { runInTransaction, type TransactionalOutcomes } from "./pipeline/transactional.js";
import { checkTransport, EncodedBody, MissingRawBody, type TransportRules } from "./pipeline/transport.js";
import { firstFailure, unauthorized } from "./pipeline/verify.js";
import { HandlerRegistry, type WebhookHandler } from "./registry.js";
import { normaliseMethods } from "./request-checks.js";
import { fixedWebhookResponse, webhookResponse } from "./response.js";
import type { OrderStatus, OrderStatusWebhook } from "./schemas.js";
import {
  bodyHashKey,
  hashedKey,
  MAX_KEY_LENGTH,
  SOURCES,
  type WebhookEventFor,
  type WebhookEventName,
  type WebhookEventOf,
} from "./sources.js";
import { decodeBody } from "./transport/content-coding.js";
import { DeliveryVerificationRequest } from "./verification-request.js";
import type { EventVerifier, RequestVerifier, WebhookSource, WebhookVerifier } from "./verifiers/types.js";

/** Where the receiver reports; every method optional. Defaults: `console.warn` and `console.error`, no debug. */

/** Idempotency settings of a receiver. */
export interface WebhookIdempotencyOptions<S extends WebhookSource> {
  /** Default: a {@link MemoryIdempotencyStore} of this receiver (one process only). */
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
   * Workers run it later through {@link SourceWebhookReceiver.processInboxMessage} (with the same handlers and
   * idempotency store), retrying for as long as needed. Verification, parsing and the size and type checks are
   * unchanged. `@kirimbayar/inbox` has queues on pg-boss and BullMQ.
   */
  inbox?: WebhookInbox;
  /**
   * OpenTelemetry (`{ tracer: trace.getTracer("kirimbayar"), meter: metrics.getMeter("kirimbayar") }`): a span per
   * delivery, deliveries counted by source, outcome and status, duplicates, and the handlers' duration. Without it
   * the receiver does no telemetry work at all.
   */
  telemetry?: KirimbayarTelemetry;
}

/** Where in the pipeline an error passed to `onError` happened. */
export type WebhookErrorStage = "request" | "idempotency" | "inbox" | "handler";

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
  /**
   * Runs an event learned elsewhere (the reconciler asked the provider's status endpoint) through this receiver's
   * schema, handlers and idempotency store, under the key the webhook of the same event carries: so a webhook
   * arriving later is a duplicate, and an event a webhook already applied is not applied again. Handlers see
   * `ctx.origin === "reconciliation"`. Skips only what belongs to HTTP (transport checks, verifiers). Never throws.
   */
  applyEvent(payload: unknown): Promise<AppliedEvent>;
  /**
   * Runs one event that an inbox-mode receiver queued: parses `message.body` with this source's schema and runs it
   * through the handlers and idempotency store under `message.key` (so a redelivery, a reconciliation or another
   * worker never applies it twice). Handlers see `ctx.origin === "inbox"`. Never throws. Inbox workers call it.
   */
  processInboxMessage(message: InboxMessage): Promise<AppliedEvent>;
}

/** What {@link SourceWebhookReceiver.applyEvent} did with an event. */
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
  applyEvent(payload: unknown): Promise<AppliedEvent>;
  processInboxMessage(message: InboxMessage): Promise<AppliedEvent>;
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

/** Default `maxBodyBytes` of a receiver: 64 KiB, far above any documented payload. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
/** Default `bodyReadTimeoutMs` of a receiver: 10 s. */
export const DEFAULT_BODY_READ_TIMEOUT_MS = 10_000;
const DEFAULT_LEASE_MS = 60_000;
const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;
const DEFAULT_OPERATION_TIMEOUT_MS = 5_000;

const processed = fixedWebhookResponse(200, "Webhook processed");
const DUPLICATE_MESSAGE = "Duplicate of an event already processed";
const duplicateOfCompleted = fixedWebhookResponse(200, DUPLICATE_MESSAGE);
const duplicateInProgress = fixedWebhookResponse(409, "Duplicate of an event still being processed; retry later");
const queued = fixedWebhookResponse(200, "Webhook queued");
const duplicateOfQueued = fixedWebhookResponse(200, "Duplicate of an event already queued");

/**
 * Creates the webhook receiver of one source: verification, tolerant parsing, exactly-once dispatch.
 * Answers: 200 processed or duplicate of a processed event; 401 auth; 400 body; 413 size; 415 content type;
 * 405 method; 409 duplicate still in progress; 500 handler failed or misconfiguration; 503 store unreachable.
 *
 * Every delivery goes through the same stages, each a module of `webhooks/pipeline/`: transport checks → verify
 * (request verifiers) → parse → verify (event verifiers) → claim → run → complete (or release on failure).
 *
 * @example
 * const qris = createWebhookReceiver({
 *   source: "qris",
 *   verify: [tokenVerifier({ secrets: [process.env.QRIS_WEBHOOK_TOKEN!], in: "query", name: "token" })],
 * });
 * qris.on("payment.success", async (event) => markPaid(event.data.qris_history_id, event.data.amount));
 * export default { fetch: (request: Request) => qris.fetch(request) };
 */
export function createWebhookReceiver<S extends WebhookSource, Tx>(
  options: WebhookReceiverOptions<S> & { idempotency: TransactionalIdempotencyOptions<S, Tx> },
): SourceWebhookReceiver<S, Tx>;
export function createWebhookReceiver<S extends WebhookSource>(options: WebhookReceiverOptions<S>): SourceWebhookReceiver<S>;
export function createWebhookReceiver<S extends WebhookSource>(
  options: WebhookReceiverOptions<S>,
): SourceWebhookReceiver<S> {
  const source = options.source;
  const definition = SOURCES[source];
  if (definition === undefined || !Object.hasOwn(SOURCES, source)) {
    throw new WebhookConfigurationError(`createWebhookReceiver: source must be "qris", "payment" or "orders"`);
  }
  const logger = options.logger === undefined ? consoleLogger : webhookLoggerOf(options.logger);
  const { requestVerifiers, eventVerifiers } = splitVerifiers(source, options.verify ?? []);
  if (requestVerifiers.length + eventVerifiers.length === 0) {
    if (options.insecureNoVerification !== true) {
      throw new WebhookConfigurationError(
        `createWebhookReceiver(${source}): no verifier configured, so anyone could post fake events. Add one to ` +
          "verify (tokenVerifier, callbackKeyVerifier, hmacVerifier, ipAllowlist), or pass " +
          "insecureNoVerification: true for local development.",
      );
    }
    logger.warn?.(`Webhook receiver "${source}" accepts unverified deliveries (insecureNoVerification: true)`);
  }
  const maxBodyBytes = positive("maxBodyBytes", options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  const bodyReadTimeoutMs = timerDelay(
    positive("bodyReadTimeoutMs", options.bodyReadTimeoutMs ?? DEFAULT_BODY_READ_TIMEOUT_MS),
  );
  const methods = normaliseMethods(options.methods ?? definition.methods);
  if (methods.length === 0) throw new WebhookConfigurationError("createWebhookReceiver: methods must not be empty");
  const transportRules: TransportRules = {
    methods,
    allowHeader: { allow: methods.join(", ") },
    maxBodyBytes,
    allowMissingContentType: options.allowMissingContentType ?? true,
  };
  const webhookKeyCheck: KeyCheck = options.rejectDuplicateKeys === false ? "allow-duplicates" : "reject-duplicates";
  const crypto = options.crypto ?? defaultCryptoProvider;
  const clock = options.clock ?? Date.now;
  const idempotency = options.idempotency ?? {};
  const leaseMs = positive("idempotency.leaseMs", idempotency.leaseMs ?? DEFAULT_LEASE_MS);
  const settings: IdempotencySettings = {
    store: idempotency.store ?? new MemoryIdempotencyStore(),
    leaseMs,
    retentionMs: positive("idempotency.retentionMs", idempotency.retentionMs ?? DEFAULT_RETENTION_MS),
    operationTimeoutMs: timerDelay(
      positive("idempotency.operationTimeoutMs", idempotency.operationTimeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS),
    ),
    completionRetryMinDelayMs: positive(
      "idempotency.completionRetry.minDelayMs",
      idempotency.completionRetry?.minDelayMs ?? 25,
    ),
    completionRetryMaxDelayMs: positive(
      "idempotency.completionRetry.maxDelayMs",
      idempotency.completionRetry?.maxDelayMs ?? 1_000,
    ),
    handlerTimeoutMs: positive("idempotency.handlerTimeoutMs", idempotency.handlerTimeoutMs ?? leaseMs),
  };
  const transactional = idempotency.transactional === true;
  if (transactional && typeof (settings.store as { begin?: unknown }).begin !== "function") {
    throw new WebhookConfigurationError(
      "createWebhookReceiver: idempotency.transactional needs a store that opens transactions " +
        "(a TransactionalIdempotencyStore); this store has no begin()",
    );
  }
  const inbox = options.inbox;
  if (inbox !== undefined && typeof (inbox as Partial<WebhookInbox>)?.enqueue !== "function") {
    throw new WebhookConfigurationError("createWebhookReceiver: inbox must have an enqueue(message) method");
  }
  const telemetry =
    options.telemetry?.tracer !== undefined || options.telemetry?.meter !== undefined
      ? new WebhookTelemetry(source, options.telemetry)
      : undefined;
  const customKey = idempotency.key as ((event: unknown) => string | undefined) | undefined;
  const registry = new HandlerRegistry();
  // Claim owner tokens: unique per delivery across processes (random per receiver) without a UUID per request.
  const instanceId = globalThis.crypto.randomUUID();
  let deliveryCount = 0;
  const errorHandlers: WebhookErrorHandler[] = [];

  // Failures of events being applied through applyEvent or processInboxMessage, by event object, so the caller
  // learns the error itself. A Map emptied as each apply ends, not a WeakMap: weak entries cost every garbage
  // collection, and a reconciliation run applies thousands of events.
  const applyFailures = new Map<object, { error?: unknown }>();

  async function reportError(error: unknown, errorContext: WebhookErrorContext): Promise<void> {
    const slot = typeof errorContext.event === "object" ? applyFailures.get(errorContext.event as object) : undefined;
    if (slot !== undefined) slot.error = error;
    for (const handler of errorHandlers) {
      try {
        await handler(error, errorContext);
      } catch (handlerError) {
        logger.error?.("A webhook onError handler threw", { source, error: handlerError });
      }
    }
  }

  // The stages are plain functions that answer a response, and go asynchronous only when a verifier, the store or
  // a handler returns a thenable. With the memory store and synchronous verifiers a delivery therefore allocates
  // no async frame beyond this one and what its handlers await (bench/adapters measures this path).
  async function handle(request: WebhookHttpRequest): Promise<WebhookHttpResponse> {
    const finish = telemetry?.delivery("webhook");
    let response: WebhookHttpResponse;
    try {
      const outcome = receive(request);
      response = outcome instanceof Promise ? await outcome : outcome;
    } catch (error) {
      logger.error?.("Unexpected error while processing a webhook", { source, error });
      response = webhookResponse(500, "Internal error while processing the webhook");
    }
    finish?.(response.status, response.body);
    return response;
  }

  function receive(request: WebhookHttpRequest): Outcome {
    const now = clock();
    const method = typeof request.method === "string" ? request.method.toUpperCase() : "";
    const checked = checkTransport(method, request, transportRules);
    if (checked instanceof RequestBody) return verify(method, request, checked, now);
    if (checked instanceof EncodedBody) {
      return decodeBody(checked.body.bytes, checked.coding, maxBodyBytes).then((decoded) =>
        decoded instanceof Uint8Array ? verify(method, request, new RequestBody(decoded), now) : decoded,
      );
    }
    return checked instanceof MissingRawBody ? misconfigured(checked.problem) : checked;
  }

  function verify(method: string, request: WebhookHttpRequest, body: RequestBody, now: number): Outcome {
    const delivery = new DeliveryVerificationRequest(
      method,
      typeof request.url === "string" ? request.url : "",
      request.headers ?? {},
      body,
      request.remoteAddress ?? undefined,
      crypto,
      now,
    );
    const failure = firstFailure(requestVerifiers, delivery, undefined);
    if (failure instanceof Promise) return failure.then((reason) => parseVerified(reason, delivery));
    return parseVerified(failure, delivery);
  }

  // Parses the body once the request verifiers passed (`failure` is theirs), then runs the event verifiers.
  function parseVerified(failure: string | undefined, delivery: DeliveryVerificationRequest): Outcome {
    if (failure !== undefined) return unauthorized(failure);
    const parsed = parseEvent(delivery.body, source, definition, webhookKeyCheck);
    if (!parsed.ok) return parsed.response;
    const event = parsed.event;
    const rejection = firstFailure(eventVerifiers, delivery, event);
    if (rejection instanceof Promise) return rejection.then((reason) => dispatchVerified(reason, event, delivery));
    return dispatchVerified(rejection, event, delivery);
  }

  function dispatchVerified(failure: string | undefined, event: unknown, delivery: ReceivedDelivery): Outcome {
    return failure === undefined ? dispatch(event, delivery) : unauthorized(failure);
  }

  function misconfigured(problem: string): Promise<WebhookHttpResponse> {
    logger.error?.(problem, { source });
    const error = new WebhookProcessingError(problem, { code: "webhook_raw_body", status: 500 });
    return reportError(error, { source, stage: "request", status: 500 }).then(() =>
      webhookResponse(500, `Server misconfiguration: ${problem}`),
    );
  }

  // Exactly-once: claim the key, run the handlers, then complete it; on a handler error release it so the
  // provider's retry runs them again. A store failure before the handlers answers 503 and runs nothing.
  function dispatch(event: unknown, delivery: ReceivedDelivery): Outcome {
    // Inbox mode: the handlers run in the workers (perhaps other processes), so none need be registered here.
    if (inbox !== undefined && delivery.origin === undefined) return queue(inbox, event, delivery);
    if (registry.count === 0) {
      logger.error?.(`Webhook receiver "${source}" has no handler registered; answering 500 so the provider retries`);
      return webhookResponse(500, "No webhook handler is registered");
    }
    const eventName = definition.eventName(event);
    const status = source === "orders" ? (event as OrderStatusWebhook).status : undefined;
    const handlers = registry.select(eventName, status) as readonly Handler[];
    if (handlers.length === 0) {
      logger.debug?.(`No handler for ${source} event ${eventName}; acknowledged`, { source, event: eventName });
      return webhookResponse(200, `No handler registered for event ${eventName}; acknowledged`);
    }
    const key = keyOf(event, delivery);
    if (key instanceof Promise) return key.then((hashed) => claim(hashed, handlers, event, delivery));
    return claim(key, handlers, event, delivery);
  }

  function queue(inbox: WebhookInbox, event: unknown, delivery: ReceivedDelivery): Outcome {
    const key = keyOf(event, delivery);
    if (key instanceof Promise) return key.then((hashed) => enqueueKeyed(inbox, hashed, event, delivery));
    return enqueueKeyed(inbox, key, event, delivery);
  }

  function enqueueKeyed(inbox: WebhookInbox, key: string, event: unknown, delivery: ReceivedDelivery): Outcome {
    // The body parsed, so it is valid UTF-8 text.
    const message: InboxMessage = { key, source, body: delivery.body.text() as string, receivedAt: delivery.now };
    const written = enqueueEvent(inbox, message, settings.operationTimeoutMs);
    if (written instanceof Promise) return written.then(queuedAnswer, (error) => inboxUnavailable(error, event));
    return queuedAnswer(written);
  }

  function queuedAnswer(result: InboxEnqueueResult): WebhookHttpResponse {
    return result === "queued" ? queued() : duplicateOfQueued();
  }

  async function inboxUnavailable(error: unknown, event: unknown): Promise<WebhookHttpResponse> {
    logger.error?.("Inbox unavailable while queueing a webhook", { source, error });
    await reportError(error, { source, stage: "inbox", status: 503, event });
    return webhookResponse(503, "Inbox unavailable; retry later");
  }

  // The event's key; asynchronous only when it has to be hashed (no id in the event, or an over-long key).
  function keyOf(event: unknown, delivery: ReceivedDelivery): MaybePromise<string> {
    const key = customKey?.(event) ?? definition.defaultKey(event);
    if (key === undefined) return bodyHashKey(source, crypto, delivery.body.bytes);
    return key.length > MAX_KEY_LENGTH ? hashedKey(key, crypto) : key;
  }

  function claim(key: string, handlers: readonly Handler[], event: unknown, delivery: ReceivedDelivery): Outcome {
    if (transactional) {
      return runInTransaction(settings, source, key, handlers, event, delivery, transactionOutcomes(event));
    }
    const owner = `${instanceId}:${++deliveryCount}`;
    // Measured before the claim is sent, so the receiver never counts on more lease than the store grants.
    const leaseEndsAt = monotonicNow() + settings.leaseMs;
    let claimed: MaybePromise<ClaimResult>;
    try {
      claimed = claimKey(settings, key, owner);
    } catch (error) {
      return storeUnavailable(error, event);
    }
    if (claimed instanceof Promise) {
      return claimed.then(
        (result) => runClaimed(result, key, owner, leaseEndsAt, handlers, event, delivery),
        (error) => storeUnavailable(error, event),
      );
    }
    return runClaimed(claimed, key, owner, leaseEndsAt, handlers, event, delivery);
  }

  async function storeUnavailable(error: unknown, event: unknown): Promise<WebhookHttpResponse> {
    logger.error?.("Idempotency store unavailable while claiming a webhook", { source, error });
    await reportError(storeError(error), { source, stage: "idempotency", status: 503, event });
    return webhookResponse(503, "Idempotency store unavailable; retry later");
  }

  function runClaimed(
    result: ClaimResult,
    key: string,
    owner: string,
    leaseEndsAt: number,
    handlers: readonly Handler[],
    event: unknown,
    delivery: ReceivedDelivery,
  ): Outcome {
    if (result.state === "completed") return duplicateOfCompleted();
    if (result.state === "in_progress") return duplicateInProgress();
    const context = new DeliveryContext(source, key, result.attempt, delivery);
    const claim: Claim = { owner, leaseEndsAt, event, context };
    const startedAt = telemetry === undefined ? 0 : performance.now();
    const ranFor = (failed: boolean) =>
      telemetry?.handlerRan(definition.eventName(event), performance.now() - startedAt, failed);
    let ran: MaybePromise<void>;
    try {
      ran = runHandlers(handlers, event, context);
    } catch (error) {
      ranFor(true);
      return handlerFailed(error, claim);
    }
    if (ran instanceof Promise) {
      return withinHandlerTimeLimit(ran, settings.handlerTimeoutMs).then(
        (result) => {
          ranFor(result === TIMED_OUT);
          return result === TIMED_OUT ? handlerTimedOut(ran, claim) : complete(claim);
        },
        (error) => {
          ranFor(true);
          return handlerFailed(error, claim);
        },
      );
    }
    ranFor(false);
    return complete(claim);
  }

  // The handlers are still running at their time limit: answer 500 now (the provider retries), tell them through
  // ctx.signal, and keep the claim until they end, so that a retry meanwhile is a 409 rather than a second run.
  async function handlerTimedOut(running: Promise<void>, claim: Claim): Promise<WebhookHttpResponse> {
    const error = handlerTimeoutError(settings.handlerTimeoutMs);
    claim.context.abortHandlers(error);
    running.then(
      () => complete(claim, 500),
      (lateError: unknown) => handlerFailed(lateError, claim),
    );
    logger.error?.("A webhook handler ran out of time; answered 500 and kept its claim until it ends", {
      source,
      key: claim.context.idempotencyKey,
    });
    await reportError(error, { source, stage: "handler", status: 500, event: claim.event, context: claim.context });
    return webhookResponse(500, "The webhook handler did not finish in time; the delivery will be retried");
  }

  function transactionOutcomes(event: unknown): TransactionalOutcomes {
    return {
      processed,
      duplicateOfCompleted,
      duplicateInProgress,
      storeUnavailable: (error) => storeUnavailable(error, event),
      async failed(error, context, stage) {
        if (stage === "idempotency") {
          logger.error?.("Could not commit a webhook's transaction; it was rolled back", { source, error });
        }
        await reportError(stage === "handler" ? error : storeError(error), {
          source,
          stage,
          status: 500,
          event,
          context,
        });
        return webhookResponse(
          500,
          stage === "handler"
            ? "The webhook handler failed; the delivery will be retried"
            : "Could not commit the webhook's transaction; the delivery will be retried",
        );
      },
    };
  }

  async function handlerFailed(error: unknown, claim: Claim): Promise<WebhookHttpResponse> {
    await releaseClaim(claim.context.idempotencyKey, claim.owner);
    await reportError(error, { source, stage: "handler", status: 500, event: claim.event, context: claim.context });
    return webhookResponse(500, "The webhook handler failed; the delivery will be retried");
  }

  // `answered`: the status the delivery got (500 when the handlers ended after their time limit).
  function complete(claim: Claim, answered: 200 | 500 = 200): Outcome {
    const completed = completeClaim(settings, claim.context.idempotencyKey, claim.owner, claim.leaseEndsAt);
    if (completed instanceof Promise) {
      return completed.then(
        (done) => processedAfter(done, claim),
        (error) => completionFailed(error, claim, answered),
      );
    }
    return processedAfter(completed, claim);
  }

  function processedAfter(completed: boolean, claim: Claim): WebhookHttpResponse {
    if (!completed) {
      logger.warn?.("A webhook handler finished after its lease ended; raise idempotency.leaseMs", {
        source,
        key: claim.context.idempotencyKey,
      });
    }
    return processed();
  }

  // Recording kept failing for the whole lease. The handler did finish, so 200 is the truthful answer (500 would
  // make the provider run it again for sure); a redelivery after the lease may still run it again.
  async function completionFailed(error: unknown, claim: Claim, answered: 200 | 500): Promise<WebhookHttpResponse> {
    logger.error?.("Could not record a processed webhook as completed before its lease ended", { source, error });
    const { event, context } = claim;
    await reportError(storeError(error), { source, stage: "idempotency", status: answered, event, context });
    return processed();
  }

  async function releaseClaim(key: string, owner: string): Promise<void> {
    try {
      await storeOperation(
        () => settings.store.release(key, owner, settings.retentionMs),
        settings.operationTimeoutMs,
        "release",
      );
    } catch (error) {
      // The lease then simply runs out and a later retry claims the key.
      logger.error?.("Could not release a failed webhook's claim; it frees up when the lease ends", { source, error });
    }
  }

  async function applyEvent(payload: unknown): Promise<AppliedEvent> {
    let text: string;
    try {
      text = JSON.stringify(payload);
    } catch (error) {
      return { outcome: "invalid", error };
    }
    return applyBody(new RequestBody(text ?? ""), "serialized", "reconciliation", clock(), undefined);
  }

  async function processInboxMessage(message: InboxMessage): Promise<AppliedEvent> {
    if (typeof message?.body !== "string" || typeof message.key !== "string" || message.source !== source) {
      const error = new WebhookProcessingError(`Not an inbox message of the ${source} source`, {
        code: "webhook_invalid_event",
        status: 400,
      });
      return { outcome: "invalid", error };
    }
    const receivedAt = Number.isFinite(message.receivedAt) ? message.receivedAt : clock();
    // A queued body is text from outside the process: checked like a webhook's, repeated keys allowed as before.
    return applyBody(new RequestBody(message.body), "allow-duplicates", "inbox", receivedAt, message.key);
  }

  // Parse → claim → run → complete for an event that did not come through handle(): no transport checks and no
  // verifiers (the webhook's were passed before it was queued, or it came from the provider's status endpoint).
  async function applyBody(
    body: RequestBody,
    keyCheck: KeyCheck,
    origin: "reconciliation" | "inbox",
    now: number,
    knownKey: string | undefined,
  ): Promise<AppliedEvent> {
    const parsed = parseEvent(body, source, definition, keyCheck);
    if (!parsed.ok) {
      const error = new WebhookProcessingError(JSON.parse(parsed.response.body).message, {
        code: "webhook_invalid_event",
        status: 400,
      });
      return { outcome: "invalid", error };
    }
    const event = parsed.event as object;
    const slot: { error?: unknown } = {};
    applyFailures.set(event, slot);
    const delivery: ReceivedDelivery = { origin, now, headers: {}, body, remoteAddress: undefined };
    const finish = telemetry?.delivery(origin);
    let response: WebhookHttpResponse;
    try {
      const outcome = dispatch(event, delivery);
      response = outcome instanceof Promise ? await outcome : outcome;
    } catch (error) {
      finish?.(500, "", error);
      return { outcome: "failed", error };
    } finally {
      applyFailures.delete(event);
    }
    finish?.(response.status, response.body, slot.error);
    const keyed = knownKey ?? customKey?.(event) ?? definition.defaultKey(event);
    const withKey = keyed === undefined ? {} : { key: keyed };
    if (response.status === 409) return { outcome: "in_progress", ...withKey };
    if (response.status !== 200) {
      const error =
        slot.error ??
        new WebhookProcessingError(JSON.parse(response.body).message, {
          code: "webhook_failed",
          status: response.status,
        });
      return { outcome: "failed", error, ...withKey };
    }
    if (registry.select(definition.eventName(event), statusOf(event)).length === 0)
      return { outcome: "not_handled", ...withKey };
    // The body is one of two fixed answers; no need to parse it.
    return { outcome: response.body.includes(DUPLICATE_MESSAGE) ? "already_applied" : "applied", ...withKey };
  }

  function statusOf(event: unknown): string | undefined {
    return source === "orders" ? (event as OrderStatusWebhook).status : undefined;
  }

  const receiver: SourceWebhookReceiver<S> = {
    source,
    maxBodyBytes,
    bodyReadTimeoutMs,
    get handlerCount() {
      return registry.count;
    },
    on(event, handler) {
      const name = String(event);
      if (source !== "qris" && !(name in SOURCE_EVENT_NAMES[source])) {
        throw new WebhookConfigurationError(
          `on("${name}"): a ${source} receiver delivers ${Object.keys(SOURCE_EVENT_NAMES[source]).join(", ")}` +
            (source === "orders" ? "; use onOrderStatus() for one status" : ""),
        );
      }
      registry.addForEvent(name, assertHandler(handler));
      return this;
    },
    onOrderStatus(status, handler) {
      if (source !== "orders") {
        throw new WebhookConfigurationError(`onOrderStatus() is only available on an "orders" receiver`);
      }
      if (typeof status !== "string" || status.trim() === "") {
        throw new WebhookConfigurationError("onOrderStatus(): status must be a non-empty string");
      }
      registry.addForStatus(status, assertHandler(handler));
      return this;
    },
    onAny(handler) {
      registry.addForAny(assertHandler(handler));
      return this;
    },
    onError(handler) {
      errorHandlers.push(assertHandler(handler));
      return this;
    },
    handle,
    fetch: (request, info) => fetchEntry(receiver, request, info),
    applyEvent,
    processInboxMessage,
  };
  return receiver;
}

const SOURCE_EVENT_NAMES: Record<WebhookSource, Record<string, true>> = {
  qris: { "payment.success": true, "payment.expired": true },
  payment: { "payment.callback": true },
  orders: { "order.status": true },
};

const consoleLogger: WebhookLogger = {
  warn: (message, details) => console.warn(`[kirimbayar] ${message}`, details ?? ""),
  error: (message, details) => console.error(`[kirimbayar] ${message}`, details ?? ""),
};

function splitVerifiers(
  source: WebhookSource,
  verifiers: readonly WebhookVerifier[],
): { requestVerifiers: RequestVerifier[]; eventVerifiers: EventVerifier[] } {
  if (!Array.isArray(verifiers)) throw new WebhookConfigurationError("createWebhookReceiver: verify must be an array");
  const requestVerifiers: RequestVerifier[] = [];
  const eventVerifiers: EventVerifier[] = [];
  for (const verifier of verifiers) {
    if (typeof verifier?.verify !== "function" || (verifier.kind !== "request" && verifier.kind !== "event")) {
      throw new WebhookConfigurationError(
        "createWebhookReceiver: every verify entry must be a verifier (tokenVerifier(...), callbackKeyVerifier(...), ...)",
      );
    }
    if (verifier.sources !== undefined && !verifier.sources.includes(source)) {
      throw new WebhookConfigurationError(
        `${verifier.name} cannot verify "${source}" deliveries (only ${verifier.sources.join(", ")})`,
      );
    }
    if (verifier.kind === "request") requestVerifiers.push(verifier);
    else eventVerifiers.push(verifier);
  }
  return { requestVerifiers, eventVerifiers };
}

/** A response, or its promise once a verifier, the store or a handler went asynchronous. */
type Outcome = WebhookHttpResponse | Promise<WebhookHttpResponse>;
type Handler = WebhookHandler<unknown>;

/** A delivery that holds its key's claim, on its way through the handlers to completion or release. */
interface Claim {
  readonly owner: string;
  /** End of the lease on the monotonic clock: completion is retried until then. */
  readonly leaseEndsAt: number;
  readonly event: unknown;
  readonly context: DeliveryContext;
}

function storeError(error: unknown): WebhookProcessingError {
  return new WebhookProcessingError("The idempotency store is unavailable", {
    code: "idempotency_store_unavailable",
    status: 503,
    cause: error,
  });
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new WebhookConfigurationError(`createWebhookReceiver: ${name} must be a positive number`);
  }
  return value;
}

function assertHandler<T>(handler: T): T {
  if (typeof handler !== "function") throw new WebhookConfigurationError("a webhook handler must be a function");
  return handler;
}
