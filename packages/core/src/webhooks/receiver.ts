import type { MaybePromise } from "../idempotency/types.js";
import type { DeliveryJournal } from "../journal/types.js";
import { RequestBody } from "./body.js";
import type { ReceivedDelivery } from "./context.js";
import type { WebhookHttpRequest, WebhookHttpResponse } from "./contract.js";
import { WebhookConfigurationError } from "./errors.js";
import { fetchEntry } from "./fetch.js";
import type { WebhookInbox } from "./inbox.js";
import { directDelivery, type Outcome } from "./pipeline/direct.js";
import type { JournalOptions, RunnableJournalStage } from "./pipeline/journal.js";
import { parseEvent } from "./pipeline/parse.js";
import { FailureReports } from "./pipeline/report.js";
import { checkTransport, EncodedBody } from "./pipeline/transport.js";
import { firstFailure, unauthorized } from "./pipeline/verify.js";
import { receiverConfig } from "./receiver-config.js";
import { attachInternals } from "./receiver-internals.js";
import type {
  SourceWebhookReceiver,
  TransactionalIdempotencyOptions,
  WebhookErrorHandler,
  WebhookReceiverOptions,
} from "./receiver-types.js";
import { HandlerRegistry, type WebhookHandler } from "./registry.js";
import { webhookResponse } from "./response.js";
import type { OrderStatusWebhook } from "./schemas.js";
import { bodyHashKey, hashedKey, MAX_KEY_LENGTH } from "./sources.js";
import { decodeBody } from "./transport/content-coding.js";
import { DeliveryVerificationRequest } from "./verification-request.js";
import type { WebhookSource } from "./verifiers/types.js";

export { DEFAULT_BODY_READ_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES } from "./receiver-config.js";

type Handler = WebhookHandler<unknown>;
type Journal = DeliveryJournal & { readonly journalStage: RunnableJournalStage };

/**
 * Creates the webhook receiver of one source: verification, tolerant parsing, exactly-once dispatch.
 * Answers: 200 processed or duplicate of a processed event; 401 auth; 400 body; 413 size; 415 content type;
 * 405 method; 409 duplicate still in progress; 500 handler failed or misconfiguration; 503 store unreachable.
 *
 * Every delivery goes through the same stages, each a module of `webhooks/pipeline/`: transport checks → verify
 * (request verifiers) → parse → verify (event verifiers) → claim → run → complete (or release on failure). The
 * receiver only composes them.
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
export function createWebhookReceiver<S extends WebhookSource>(
  options: WebhookReceiverOptions<S>,
): SourceWebhookReceiver<S>;
export function createWebhookReceiver<S extends WebhookSource>(
  options: WebhookReceiverOptions<S>,
): SourceWebhookReceiver<S> {
  const config = receiverConfig(options);
  const { source, definition, logger, crypto, clock, telemetry, customKey } = config;
  const registry = new HandlerRegistry();
  const reports = new FailureReports(source, logger);
  // Direct, or (transactional) the stage the store brought, so that a receiver on another store bundles none of it.
  const deliver = config.transactional?.run(config, reports) ?? directDelivery(config, reports);
  // The journal brings its own stage (as an inbox does), so a receiver without one bundles none of its code; the
  // stage reads its options (`journal`, `journalOutsideTransaction`) itself.
  const journal = (options.journal as Journal | undefined)?.journalStage.run(
    options as JournalOptions,
    config,
    reports,
  );

  // The stages are plain functions that answer a response, and go asynchronous only when a verifier, the store or
  // a handler returns a thenable. With the memory store and synchronous verifiers a delivery therefore allocates
  // no async frame, only what its handlers await and one promise (bench/adapters measures this path).
  function handle(request: WebhookHttpRequest): Promise<WebhookHttpResponse> {
    const finish = telemetry?.delivery("webhook");
    let outcome: Outcome;
    try {
      outcome = receive(request);
    } catch (error) {
      outcome = unexpected(error);
    }
    const answered = outcome instanceof Promise ? outcome.catch(unexpected) : Promise.resolve(outcome);
    // Nothing to tell once answered (no telemetry, no journal): no further promise per delivery.
    return finish || journal
      ? answered.then((response) => {
          finish?.(response.status, response.body);
          journal?.done(response, request.rawBody);
          return response;
        })
      : answered;
  }

  function unexpected(error: unknown): WebhookHttpResponse {
    logger.error?.("Unexpected error while processing a webhook", { source, error });
    return webhookResponse(500, "Internal error while processing the webhook");
  }

  function receive(request: WebhookHttpRequest): Outcome {
    const now = clock();
    // Anything but a string names no accepted method (405), nor a URL a token verifier finds a token in (401).
    const method = String(request.method ?? "").toUpperCase();
    const checked = checkTransport(method, request, config.transportRules);
    if (checked instanceof RequestBody) return verify(method, request, checked, now);
    if (checked instanceof EncodedBody) {
      return decodeBody(checked.body.bytes, checked.coding, config.maxBodyBytes).then((decoded) =>
        decoded instanceof Uint8Array ? verify(method, request, new RequestBody(decoded), now) : decoded,
      );
    }
    return typeof checked === "string" ? reports.misconfigured(checked) : checked;
  }

  function verify(method: string, request: WebhookHttpRequest, body: RequestBody, now: number): Outcome {
    const delivery = new DeliveryVerificationRequest(
      method,
      String(request.url ?? ""),
      request.headers ?? {},
      body,
      request.remoteAddress ?? undefined,
      crypto,
      now,
    );
    const failure = firstFailure(config.requestVerifiers, delivery, undefined);
    if (failure instanceof Promise) return failure.then((reason) => parseVerified(reason, delivery));
    return parseVerified(failure, delivery);
  }

  // Parses the body once the request verifiers passed (`failure` is theirs), then runs the event verifiers.
  function parseVerified(failure: string | undefined, delivery: DeliveryVerificationRequest): Outcome {
    if (failure !== undefined) return unauthorized(failure);
    const parsed = parseEvent(delivery.body, source, definition, config.webhookKeyCheck);
    if (!parsed.ok) return parsed.response;
    const event = parsed.event;
    const rejection = firstFailure(config.eventVerifiers, delivery, event);
    if (rejection instanceof Promise) return rejection.then((reason) => dispatchVerified(reason, event, delivery));
    return dispatchVerified(rejection, event, delivery);
  }

  function dispatchVerified(failure: string | undefined, event: unknown, delivery: ReceivedDelivery): Outcome {
    return failure === undefined ? dispatch(event, delivery) : unauthorized(failure);
  }

  function dispatchEvent(event: unknown, delivery: ReceivedDelivery): Outcome {
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
    if (key instanceof Promise) return key.then((hashed) => deliver(hashed, handlers, event, delivery));
    return deliver(key, handlers, event, delivery);
  }

  // The event's key; asynchronous only when it has to be hashed (no id in the event, or an over-long key).
  function keyOf(event: unknown, delivery: ReceivedDelivery): MaybePromise<string> {
    const key = customKey?.(event) ?? definition.defaultKey(event);
    if (key === undefined) return bodyHashKey(source, crypto, delivery.body.bytes);
    return key.length > MAX_KEY_LENGTH ? hashedKey(key, crypto) : key;
  }

  // Inbox mode: the inbox's stage queues the webhooks (their handlers run in the workers, perhaps other processes, so
  // none need be registered here) and passes the events applied outside handle() on to dispatchEvent.
  const queued =
    config.inboxStage?.run(options.inbox as WebhookInbox, config, reports, keyOf, dispatchEvent) ?? dispatchEvent;
  // With a journal, every event that reaches dispatch is journalled once answered (see JournalTap.watch).
  const dispatch = journal ? journal.watch(queued) : queued;

  const receiver: SourceWebhookReceiver<S> = {
    source: source as S,
    maxBodyBytes: config.maxBodyBytes,
    bodyReadTimeoutMs: config.bodyReadTimeoutMs,
    get handlerCount() {
      return registry.count;
    },
    on(event, handler) {
      const name = String(event);
      const names = SOURCE_EVENT_NAMES[source];
      if (names !== undefined && !names.includes(name)) {
        throw new WebhookConfigurationError(
          `on("${name}"): a ${source} receiver delivers ${names.join(", ")}` +
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
    onError(handler: WebhookErrorHandler) {
      reports.handlers.push(assertHandler(handler));
      return this;
    },
    handle,
    fetch: (request, info) => fetchEntry(receiver, request, info),
  };
  attachInternals(receiver, { config, reports, registry, dispatch });
  return receiver;
}

// The event names a payment or orders receiver delivers (a QR receiver takes any: the QR service adds events).
const SOURCE_EVENT_NAMES: Partial<Record<WebhookSource, readonly string[]>> = {
  payment: ["payment.callback"],
  orders: ["order.status"],
};

function assertHandler<T>(handler: T): T {
  if (typeof handler !== "function") throw new WebhookConfigurationError("a webhook handler must be a function");
  return handler;
}
