// Entry point of `@kirimbayar/console`: the webhook console, a Web Request → Response handler.
export { createWebhookConsole } from "./console.js";
export { ConsoleConfigurationError } from "./errors.js";
export type {
  ConsoleAuthorization,
  ConsoleAuthorize,
  ConsoleDeadLetter,
  ConsoleInbox,
  ConsoleInboxAttempt,
  ConsoleReconciler,
  PerSource,
  WebhookConsole,
  WebhookConsoleOptions,
} from "./options.js";
export { ROUTES } from "./routes.js";
