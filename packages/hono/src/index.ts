// Entry point of `@kirimbayar/hono`: the webhook app and the clients middleware. Runtime-neutral (no `node:`).

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
export { createWebhookApp, type WebhookApp, type WebhookAppOptions } from "./app.js";
export {
  type KirimbayarVariables,
  kirimbayarClients,
} from "./clients.js";
