/**
 * The logger a receiver reports to, in `console`'s argument order: a message, then structured details (`source`,
 * `key`, `error`, ...). `console` is one; so is any object with some of these methods.
 */
export interface WebhookLogger {
  warn?(message: string, details?: Record<string, unknown>): void;
  error?(message: string, details?: Record<string, unknown>): void;
  debug?(message: string, details?: Record<string, unknown>): void;
}

/**
 * A pino-style logger: fields first, then the message (`logger.error({ err, source }, "...")`). pino is one; pass it
 * as it is and each entry keeps its fields as structured JSON (the error under `err`, pino's convention, so its
 * serializer prints message, type and stack).
 */
export interface FieldsFirstLogger {
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
  debug(fields: object, message?: string): void;
  child(bindings: object): unknown;
  bindings(): object;
}

/** Either kind of logger; receivers, the reconciler and inbox workers accept both. */
export type AnyLogger = WebhookLogger | FieldsFirstLogger;

/**
 * The {@link WebhookLogger} view of `logger`: a pino-style logger (recognised by pino's `child` and `bindings`) is
 * called fields first, anything else as it is.
 */
export function webhookLoggerOf(logger: AnyLogger): WebhookLogger {
  const candidate = logger as Partial<FieldsFirstLogger>;
  if (typeof candidate.bindings !== "function" || typeof candidate.child !== "function") {
    return logger as WebhookLogger;
  }
  const fieldsFirst = logger as FieldsFirstLogger;
  const at =
    (level: "warn" | "error" | "debug") =>
    (message: string, details?: Record<string, unknown>): void => {
      const { error, ...rest } = details ?? {};
      fieldsFirst[level](error === undefined ? rest : { ...rest, err: error }, message);
    };
  return { warn: at("warn"), error: at("error"), debug: at("debug") };
}
