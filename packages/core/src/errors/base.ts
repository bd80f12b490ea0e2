/**
 * Base class of every error kirimbayar throws, so one `instanceof KirimbayarError` catches them all.
 * Subclasses never carry a secret (API key, callback key, webhook secret) in a message or property.
 *
 * @example
 * try { await client.getPaymentStatus("KPAY-1") } catch (e) { if (e instanceof KirimbayarError) log(e.code) }
 */
export class KirimbayarError extends Error {
  /** Stable machine-readable code, e.g. `"request_validation"`, `"rate_limited"`. */
  readonly code: string;

  constructor(message: string, options: { code: string; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
  }
}
