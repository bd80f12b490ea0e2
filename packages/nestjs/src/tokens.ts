/** Injection token of the webhook receivers built from the module options (see `WebhookRoutes`). */
export const KIRIMBAYAR_WEBHOOK_ROUTES = Symbol("kirimbayar:webhook-routes");

/** Injection token of every configured API client, by name. */
export const KIRIMBAYAR_CLIENTS = Symbol("kirimbayar:clients");

/** Metadata key under which the handler decorators record their bindings on a method. */
export const KIRIMBAYAR_HANDLER_BINDINGS = "kirimbayar:handler-bindings";

/** Injection token of the webhook controller's route prefix (`webhookPath`). */
export const KIRIMBAYAR_WEBHOOK_PATH = Symbol("kirimbayar:webhook-path");

/** The module options, as the reconciler reads them (an alias of the builder's options token). */
export const KIRIMBAYAR_OPTIONS_FOR_RECONCILER = Symbol("kirimbayar:options-for-reconciler");

/** The module options, as the inbox worker reads them (an alias of the builder's options token). */
export const KIRIMBAYAR_OPTIONS_FOR_INBOX_WORKER = Symbol("kirimbayar:options-for-inbox-worker");

/** Injection token of the console the module serves (built from the module options at boot), if any. */
export const KIRIMBAYAR_CONSOLE = Symbol("kirimbayar:console");

/** Injection token of the module's console route as defined (`null` without a console). */
export const KIRIMBAYAR_CONSOLE_ROUTE = Symbol("kirimbayar:console-route");

/** Injection token of the `GracefulShutdown` given to `KirimbayarShutdownModule.forRoot`. */
export const KIRIMBAYAR_SHUTDOWN = Symbol("kirimbayar:shutdown");
