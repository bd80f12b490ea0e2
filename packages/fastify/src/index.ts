// Entry point of `@kirimbayar/fastify`: the webhook plugin, the raw-body reader it uses, the clients plugin and the
// console plugin.
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
export { type KirimbayarClientsPlugin, kirimbayarClients } from "./clients.js";
export {
  CONSOLE_MAX_BODY_BYTES,
  type ConsolePluginOptions,
  consolePlugin,
  type MountableConsole,
} from "./console.js";
export { createWebhookPlugin, type WebhookPlugin, type WebhookPluginOptions } from "./plugin.js";
export {
  type ReadFastifyWebhookRequestOptions,
  type ReadFastifyWebhookRequestResult,
  readFastifyWebhookRequest,
} from "./raw-body.js";
export { fastifyShutdownSteps } from "./shutdown.js";
