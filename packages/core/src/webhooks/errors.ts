import { KirimbayarError } from "../errors/base.js";

/**
 * Thrown while building a webhook receiver or verifier when the configuration is wrong (no verifier, a secret
 * with whitespace, an invalid CIDR, ...). The message names the mistake and never contains a secret.
 *
 * @example
 * try { tokenVerifier({ secrets: ["abc\n"], in: "query" }) } catch (e) { e instanceof WebhookConfigurationError } // true
 */
export class WebhookConfigurationError extends KirimbayarError {
  constructor(message: string) {
    super(message, { code: "webhook_configuration" });
  }
}

/**
 * Passed to `onError` when the receiver itself cannot process a delivery: the idempotency store is unreachable
 * (`code: "idempotency_store_unavailable"`, answered 503) or the adapter handed over a body that is not raw bytes
 * (`code: "webhook_raw_body"`, answered 500).
 *
 * @example
 * receiver.onError((error) => { if (error instanceof WebhookProcessingError) alert(error.code) });
 */
export class WebhookProcessingError extends KirimbayarError {
  /** The HTTP status the delivery was answered with. */
  readonly status: number;

  constructor(message: string, options: { code: string; status: number; cause?: unknown }) {
    super(message, { code: options.code, cause: options.cause });
    this.status = options.status;
  }
}
