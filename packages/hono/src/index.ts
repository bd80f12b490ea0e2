// Entry point of `@kirimbayar/hono`: the webhook app and the clients middleware. Runtime-neutral (no `node:`).

export {
  createClients,
  type KirimbayarClientName,
  type KirimbayarClients,
  type KirimbayarClientsOptions,
} from "@kirimbayar/core";
export {
  createWebhookApp,
  type WebhookApp,
  type WebhookAppOptions,
  type WebhookAppReceivers,
  type WebhookSourceConfig,
  type WebhookSources,
} from "./app.js";
export {
  type KirimbayarVariables,
  kirimbayarClients,
} from "./clients.js";
