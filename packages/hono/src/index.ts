// Entry point of `@kirimbayar/hono`: the webhook app and the clients middleware. Runtime-neutral (no `node:`).
export {
  createWebhookApp,
  type WebhookApp,
  type WebhookAppOptions,
  type WebhookAppReceivers,
  type WebhookSourceConfig,
  type WebhookSources,
} from "./app.js";
export {
  createClients,
  type KirimbayarClientName,
  type KirimbayarClients,
  type KirimbayarClientsOptions,
  type KirimbayarVariables,
  kirimbayarClients,
} from "./clients.js";
