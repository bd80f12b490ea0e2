// Entry point of `@kirimbayar/nestjs`: the module, the handler decorators and the injection tokens.

export type { KirimbayarClientName, KirimbayarClients, KirimbayarClientsOptions } from "@kirimbayar/core";
// The client classes are the injection tokens; re-exported so one import names both the token and its type.
export {
  OrderWebhookClient,
  PaymentGatewayClient,
  QrisClient,
  ShippingClient,
  ShippingProClient,
  ShippingStarterClient,
} from "@kirimbayar/core";
export type { WebhookReceivers, WebhookSourceConfig, WebhookSourceConfigs } from "@kirimbayar/core/webhooks";
export { createConsoleController } from "./console-controller.js";
export { type HandlerBinding, OnOrderStatus, OnPaymentCallback, OnQrisEvent } from "./decorators.js";
export { KirimbayarInboxWorker } from "./inbox-worker.service.js";
export { KIRIMBAYAR_MODULE_OPTIONS, KirimbayarModule } from "./kirimbayar.module.js";
export type {
  KirimbayarConsoleContext,
  KirimbayarConsoleHandler,
  KirimbayarConsoleOptions,
  KirimbayarDeadLetter,
  KirimbayarInboxOptions,
  KirimbayarInboxQueue,
  KirimbayarInboxWorkerOptions,
  KirimbayarModuleExtras,
  KirimbayarModuleOptions,
  MountableConsole,
} from "./options.js";
export { KirimbayarReconciler } from "./reconciler.service.js";
export { KIRIMBAYAR_SHUTDOWN, KirimbayarShutdown, KirimbayarShutdownModule } from "./shutdown.js";
export { KIRIMBAYAR_CLIENTS } from "./tokens.js";
