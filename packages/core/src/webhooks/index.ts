export type {
  CounterLike,
  HistogramLike,
  KirimbayarTelemetry,
  MeterLike,
  ObservableGaugeLike,
  ObservableResultLike,
  SpanLike,
  TelemetryAttributes,
  TracerLike,
  WebhookSourceTelemetry,
  WebhookTelemetry,
} from "../telemetry/index.js";
export type { EventOrigin, WebhookContext } from "./context.js";
export type { WebhookHeadersInput, WebhookHttpRequest, WebhookHttpResponse } from "./contract.js";
export { WebhookConfigurationError, WebhookProcessingError } from "./errors.js";
export {
  type InboxEnqueueResult,
  type InboxMessage,
  type InboxStage,
  InboxUnavailableError,
  type WebhookInbox,
} from "./inbox.js";
export { type JsonParseResult, parseUntrustedJson, type UntrustedJsonOptions } from "./json.js";
export { type AnyLogger, type FieldsFirstLogger, type WebhookLogger, webhookLoggerOf } from "./logger.js";
export { createWebhookReceiver, DEFAULT_BODY_READ_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES } from "./receiver.js";
export type {
  AnyWebhookReceiver,
  AppliedEvent,
  SourceWebhookReceiver,
  TransactionalIdempotencyOptions,
  WebhookErrorContext,
  WebhookErrorHandler,
  WebhookErrorStage,
  WebhookIdempotencyOptions,
  WebhookReceiver,
  WebhookReceiverOptions,
} from "./receiver-types.js";
export type { WebhookHandler } from "./registry.js";
export {
  type OrderStatus,
  type OrderStatusWebhook,
  orderStatusWebhookSchema,
  type PaymentCallback,
  type PaymentCallbackStatus,
  paymentCallbackSchema,
  QRIS_KNOWN_EVENTS,
  type QrisPaymentExpiredEvent,
  type QrisPaymentSuccessEvent,
  type QrisUnknownEvent,
  type QrisWebhookEvent,
  qrisPaymentExpiredEventSchema,
  qrisPaymentSuccessEventSchema,
  qrisUnknownEventSchema,
  qrisWebhookEventSchema,
} from "./schemas.js";
export {
  buildWebhookReceivers,
  WEBHOOK_SOURCES,
  type WebhookPaths,
  type WebhookReceivers,
  type WebhookSourceConfig,
  type WebhookSourceConfigs,
  webhookPathOf,
} from "./source-configs.js";
export type { WebhookEventFor, WebhookEventMap, WebhookEventName, WebhookEventOf } from "./sources.js";
export { parseWebhookTimestamp } from "./time.js";
export * from "./verifiers/index.js";
