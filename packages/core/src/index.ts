// Entry point of `@kirimbayar/core`: the API clients, schemas and helpers, plus everything in `./webhooks`.

export * from "./clients/index.js";
export * from "./errors/index.js";
export * from "./helpers/index.js";
export * from "./http/index.js";
export { type BatchingOptions, KeyedBatcher } from "./idempotency/keyed-batcher.js";
export * from "./orders/index.js";
export * from "./payment/index.js";
export * from "./qris/index.js";
export * from "./reconcile/index.js";
export * from "./shipping/index.js";
export { webhookTelemetry } from "./telemetry/webhook-telemetry.js";
export { SDK_NAME } from "./version.js";
export { applyEvent, type InboxMessageOptions, processInboxMessage } from "./webhooks/pipeline/apply.js";
export { inboxStage } from "./webhooks/pipeline/enqueue.js";
export { transactionalStage } from "./webhooks/pipeline/transactional.js";
export * from "./webhooks.js";
export * from "./webhooks-ip-allowlist.js";
