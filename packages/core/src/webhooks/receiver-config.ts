// Option validation of createWebhookReceiver: every option checked and defaulted once, when the receiver is built, so
// that a mistake fails there with a WebhookConfigurationError rather than on the first payment.
import { defaultCryptoProvider } from "../crypto/index.js";
import type { CryptoProvider } from "../crypto/types.js";
import { MemoryIdempotencyStore } from "../idempotency/memory.js";
import type { WebhookSourceTelemetry } from "../telemetry/types.js";
import { timerDelay } from "../timer-delay.js";
import { WebhookConfigurationError } from "./errors.js";
import { type WebhookLogger, webhookLoggerOf } from "./logger.js";
import type { RunnableInboxStage } from "./pipeline/enqueue.js";
import type { IdempotencySettings } from "./pipeline/idempotency-settings.js";
import { allowDuplicateKeys, type KeyCheck, rejectDuplicateKeys } from "./pipeline/parse.js";
import type { RunnableTransactionalStage } from "./pipeline/transactional.js";
import type { TransportRules } from "./pipeline/transport.js";
import type { WebhookReceiverOptions } from "./receiver-types.js";
import { normaliseMethods } from "./request-checks.js";
import { SOURCES, type SourceDefinition } from "./sources.js";
import type { EventVerifier, RequestVerifier, WebhookSource, WebhookVerifier } from "./verifiers/types.js";

/** Default `maxBodyBytes` of a receiver: 64 KiB, far above any documented payload. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
/** Default `bodyReadTimeoutMs` of a receiver: 10 s. */
export const DEFAULT_BODY_READ_TIMEOUT_MS = 10_000;
const DEFAULT_LEASE_MS = 60_000;
const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;
const DEFAULT_OPERATION_TIMEOUT_MS = 5_000;

/** A receiver's options, validated and defaulted. */
export interface ReceiverConfig {
  readonly source: WebhookSource;
  readonly definition: SourceDefinition;
  readonly logger: WebhookLogger;
  readonly requestVerifiers: readonly RequestVerifier[];
  readonly eventVerifiers: readonly EventVerifier[];
  readonly maxBodyBytes: number;
  readonly bodyReadTimeoutMs: number;
  readonly transportRules: TransportRules;
  /** How a webhook's body is checked for repeated keys. */
  readonly webhookKeyCheck: KeyCheck;
  readonly crypto: CryptoProvider;
  readonly clock: () => number;
  readonly settings: IdempotencySettings;
  /** The transactional stage, taken from the store, with `idempotency.transactional`. */
  readonly transactional: RunnableTransactionalStage | undefined;
  /** The enqueue stage, taken from the inbox (`options.inbox`). */
  readonly inboxStage: RunnableInboxStage | undefined;
  readonly telemetry: WebhookSourceTelemetry | undefined;
  readonly customKey: ((event: unknown) => string | undefined) | undefined;
}

/** Checks and defaults the options of {@link createWebhookReceiver}; throws {@link WebhookConfigurationError}. */
export function receiverConfig<S extends WebhookSource>(options: WebhookReceiverOptions<S>): ReceiverConfig {
  const source = options.source;
  const definition = SOURCES[source];
  if (!Object.hasOwn(SOURCES, source)) {
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
  const idempotency = options.idempotency ?? {};
  const settings = idempotencySettings(idempotency);
  const transactional =
    idempotency.transactional === true
      ? stageOf<RunnableTransactionalStage>(
          settings.store,
          "begin",
          "transactionalStage",
          "idempotency.store (transactional: true)",
        )
      : undefined;
  const inboxStage =
    options.inbox === undefined
      ? undefined
      : stageOf<RunnableInboxStage>(options.inbox, "enqueue", "inboxStage", "inbox");
  if (options.telemetry !== undefined && typeof options.telemetry?.forSource !== "function") {
    throw new WebhookConfigurationError(
      'createWebhookReceiver: telemetry must be made by webhookTelemetry({ tracer, meter }) of "@kirimbayar/core/telemetry"',
    );
  }
  return {
    source,
    definition,
    logger,
    requestVerifiers,
    eventVerifiers,
    maxBodyBytes,
    bodyReadTimeoutMs,
    transportRules: {
      methods,
      allowHeader: { allow: methods.join(", ") },
      maxBodyBytes,
      allowMissingContentType: options.allowMissingContentType ?? true,
    },
    webhookKeyCheck: options.rejectDuplicateKeys === false ? allowDuplicateKeys : rejectDuplicateKeys,
    crypto: options.crypto ?? defaultCryptoProvider,
    clock: options.clock ?? Date.now,
    settings,
    transactional,
    inboxStage,
    telemetry: options.telemetry?.forSource(source),
    customKey: idempotency.key as ((event: unknown) => string | undefined) | undefined,
  };
}

function idempotencySettings(
  idempotency: NonNullable<WebhookReceiverOptions<WebhookSource>["idempotency"]>,
): IdempotencySettings {
  const leaseMs = positive("idempotency.leaseMs", idempotency.leaseMs ?? DEFAULT_LEASE_MS);
  return {
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
}

// The transactional stage comes with the store and the enqueue stage with the inbox, so that the webhooks entry never
// loads either for apps without one. Both are looked up (and refused) the same way: one function, as every byte of
// the entry counts (bench/bundle-size).
function stageOf<T>(holder: unknown, method: string, stage: string, option: string): T {
  const candidate = holder as Record<string, unknown> | null;
  const hasMethod = typeof candidate?.[method] === "function";
  const found = candidate?.[stage] as { run?: unknown } | undefined;
  if (hasMethod && typeof found?.run === "function") return found as T;
  throw new WebhookConfigurationError(
    `createWebhookReceiver: ${option} must have ${method}() and ${stage}` +
      (hasMethod ? ` (${stage} is missing: set it to ${stage} of "@kirimbayar/core")` : ""),
  );
}

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

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new WebhookConfigurationError(`createWebhookReceiver: ${name} must be a positive number`);
  }
  return value;
}
