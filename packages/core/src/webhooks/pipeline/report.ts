import type { WebhookHttpResponse } from "../contract.js";
import { WebhookProcessingError } from "../errors.js";
import type { WebhookLogger } from "../logger.js";
import type { WebhookErrorContext, WebhookErrorHandler } from "../receiver-types.js";
import { webhookResponse } from "../response.js";
import type { WebhookSource } from "../verifiers/types.js";

/**
 * Where a receiver's stages report what went wrong: the app's `onError` handlers (each failure once, an `onError`
 * that throws is only logged), and the caller of `applyEvent` or `processInboxMessage`, which learns the error of the
 * event it applies. Also the answers every stage shares for a store or a route that cannot work.
 */
export class FailureReports {
  readonly handlers: WebhookErrorHandler[] = [];
  /**
   * Failures of events being applied through applyEvent or processInboxMessage, by event object: set (with `report`
   * wrapped to fill it) by the first apply, so a receiver that never applies an event carries none of it.
   */
  declare applyFailures: Map<object, { error?: unknown }> | undefined;

  constructor(
    readonly source: WebhookSource,
    readonly logger: WebhookLogger,
  ) {}

  async report(error: unknown, context: WebhookErrorContext): Promise<void> {
    for (const handler of this.handlers) {
      try {
        await handler(error, context);
      } catch (handlerError) {
        this.logger.error?.("A webhook onError handler threw", { source: this.source, error: handlerError });
      }
    }
  }

  /** The store failed before any handler ran: 503, so the provider retries; nothing was applied. */
  async storeUnavailable(error: unknown, event: unknown): Promise<WebhookHttpResponse> {
    const source = this.source;
    this.logger.error?.("Idempotency store unavailable while claiming a webhook", { source, error });
    await this.report(storeError(error), { source, stage: "idempotency", status: 503, event });
    return webhookResponse(503, "Idempotency store unavailable; retry later");
  }

  /** The adapter passed no usable raw body: 500 (the route needs fixing), logged and reported. */
  async misconfigured(problem: string): Promise<WebhookHttpResponse> {
    const source = this.source;
    this.logger.error?.(problem, { source });
    const error = new WebhookProcessingError(problem, { code: "webhook_raw_body", status: 500 });
    await this.report(error, { source, stage: "request", status: 500 });
    return webhookResponse(500, `Server misconfiguration: ${problem}`);
  }
}

/** What `onError` gets for a store failure: the store's own error as its `cause`. */
export function storeError(error: unknown): WebhookProcessingError {
  return new WebhookProcessingError("The idempotency store is unavailable", {
    code: "idempotency_store_unavailable",
    status: 503,
    cause: error,
  });
}
