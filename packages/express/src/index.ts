// Entry point of `@kirimbayar/express`: the webhook router, the raw-body reader it uses, the clients middleware and
// the console mount.
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
  CONSOLE_MAX_BODY_BYTES,
  type ConsoleMountOptions,
  consoleRouter,
  type MountableConsole,
  serveConsole,
} from "./console.js";
export {
  answerNodeWebhook,
  type NodeWebhookTarget,
  type ReadWebhookRequestOptions,
  type ReadWebhookRequestResult,
  readWebhookRequest,
} from "./raw-body.js";
export { createWebhookRouter, type WebhookRouter, type WebhookRouterOptions } from "./router.js";
