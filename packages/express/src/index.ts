// Entry point of `@kirimbayar/express`: the webhook router, the raw-body reader it uses, and the clients middleware.
export {
  createClients,
  type KirimbayarClientName,
  type KirimbayarClients,
  type KirimbayarClientsOptions,
} from "@kirimbayar/core";
export type {
  WebhookPaths,
  WebhookReceivers,
  WebhookSourceConfig,
  WebhookSourceConfigs,
} from "@kirimbayar/core/webhooks";
export { kirimbayarClients } from "./clients.js";
export {
  answerNodeWebhook,
  type NodeWebhookTarget,
  type ReadWebhookRequestOptions,
  type ReadWebhookRequestResult,
  readWebhookRequest,
} from "./raw-body.js";
export { createWebhookRouter, type WebhookRouter, type WebhookRouterOptions } from "./router.js";
