// Entry point of `@kirimbayar/hono`: the webhook app, the clients middleware and the console mount.
// Runtime-neutral (no `node:`).

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
export { CONSOLE_MAX_BODY_BYTES, type ConsoleAppOptions, consoleApp, type MountableConsole } from "./console.js";
