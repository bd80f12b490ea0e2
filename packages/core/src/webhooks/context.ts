import type { RequestBody } from "./body.js";
import type { WebhookHeadersInput } from "./contract.js";
import { toWebHeaders } from "./headers.js";
import type { WebhookSource } from "./verifiers/types.js";

/**
 * What a handler learns about the delivery besides the parsed event.
 *
 * `Tx` is the type of {@link WebhookContext.transaction}: the transaction object of your database library when the
 * receiver runs transactional handlers (Prisma's transaction client, TypeORM's `EntityManager`, ...), inferred from
 * the store you pass.
 *
 * @example
 * receiver.on("payment.success", async (event, ctx) => {
 *   if (ctx.isRetry) log.info("retry of", ctx.idempotencyKey);
 * });
 */
export interface WebhookContext<Tx = unknown> {
  readonly source: WebhookSource;
  /** The key this delivery was deduplicated on (e.g. `qris:payment.success:<history id>`). */
  readonly idempotencyKey: string;
  /**
   * `true` when an earlier delivery of this event failed in a handler and was released, `false` when none is
   * known, `undefined` when the store cannot tell. A lease that expired after a crash is not counted.
   */
  readonly isRetry: boolean | undefined;
  /** 1-based attempt number where the store tracks it. */
  readonly attempt?: number | undefined;
  readonly receivedAt: Date;
  /** Request headers. */
  readonly headers: Headers;
  /** The exact body bytes. */
  readonly rawBody: Uint8Array;
  /** Peer address as the adapter passed it. */
  readonly remoteAddress?: string | undefined;
  /**
   * With transactional handlers (`idempotency: { transactional: true }`), the open transaction, as your database
   * library's own transaction object (Prisma's `tx`, TypeORM's `EntityManager`, Knex's `Knex.Transaction`, ...; for
   * a raw `pg` store, the client holding the transaction): write your effect through it, and it commits together
   * with the record that the event was processed. `undefined` otherwise.
   */
  readonly transaction: Tx;
  /**
   * Where the event came from: a webhook delivery, the reconciler finding it on the provider's status endpoint, or
   * an inbox worker running a delivery that an inbox-mode receiver queued.
   */
  readonly origin: EventOrigin;
  /**
   * Aborted when the handlers run out of time (`handlerTimeoutMs`, default the idempotency lease): pass it to the
   * calls your handler makes (`fetch(url, { signal: ctx.signal })`, a query's cancellation) so their work stops
   * once the delivery has been answered 500 and will be retried. Its `reason` is the timeout error.
   */
  readonly signal: AbortSignal;
}

/** Where an event handed to the handlers came from (`ctx.origin`). */
export type EventOrigin = "webhook" | "reconciliation" | "inbox";

/** What the receiver knows about a delivery once its body is read. */
export interface ReceivedDelivery {
  /** `"reconciliation"` or `"inbox"` for events applied outside a webhook request; webhook deliveries leave it out. */
  readonly origin?: EventOrigin;
  readonly now: number;
  readonly headers: WebhookHeadersInput;
  readonly body: RequestBody;
  readonly remoteAddress: string | undefined;
}

/** The context of one delivery; the `Headers` copy and the `Date` are built only if a handler reads them. */
export class DeliveryContext implements WebhookContext {
  // Declared, not defined: the constructor assigns each one, in this order, and a field definition would only repeat
  // every name in the bundle (bench/bundle-size).
  declare readonly source: WebhookSource;
  declare readonly idempotencyKey: string;
  declare readonly isRetry: boolean | undefined;
  declare readonly attempt: number | undefined;
  declare readonly remoteAddress: string | undefined;
  declare readonly transaction: unknown;
  declare readonly origin: EventOrigin;
  readonly #delivery: ReceivedDelivery;
  #headers: Headers | undefined;
  #abortController: AbortController | undefined;
  #abortReason: unknown;

  // Positional parameters: one context is built per delivery, and an options object would be one more allocation.
  constructor(
    source: WebhookSource,
    idempotencyKey: string,
    attempt: number | undefined,
    delivery: ReceivedDelivery,
    transaction?: unknown,
  ) {
    this.source = source;
    this.idempotencyKey = idempotencyKey;
    this.isRetry = attempt === undefined ? undefined : attempt > 1;
    this.attempt = attempt;
    this.remoteAddress = delivery.remoteAddress;
    this.transaction = transaction;
    this.origin = delivery.origin ?? "webhook";
    this.#delivery = delivery;
  }

  get receivedAt(): Date {
    return new Date(this.#delivery.now);
  }

  get headers(): Headers {
    this.#headers ??= toWebHeaders(this.#delivery.headers);
    return this.#headers;
  }

  get rawBody(): Uint8Array {
    return this.#delivery.body.bytes;
  }

  // Built on first read: most handlers never look at it, and a controller per delivery would cost every one.
  get signal(): AbortSignal {
    if (this.#abortController === undefined) {
      this.#abortController = new AbortController();
      if (this.#abortReason !== undefined) this.#abortController.abort(this.#abortReason);
    }
    return this.#abortController.signal;
  }

  /** Aborts {@link signal} (now, or when it is first read) with `reason`: the handlers ran out of time. */
  abortHandlers(reason: Error): void {
    if (this.#abortReason !== undefined) return;
    this.#abortReason = reason;
    this.#abortController?.abort(reason);
  }
}
