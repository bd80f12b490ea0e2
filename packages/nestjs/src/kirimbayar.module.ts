import { ConfigurableModuleBuilder, type DynamicModule, Module } from "@nestjs/common";
import { DiscoveryModule } from "@nestjs/core";
import { BodyParserErrorBridge } from "./body-parser-bridge.js";
import { allClientsProvider, clientClassOf, clientProviders, configuredClientNames } from "./client-providers.js";
import { consoleController } from "./console-controller.js";
import { type ConsoleRoute, consoleRouteOf, resolveConsole } from "./console-provider.js";
import { WebhookHandlerExplorer } from "./handler-explorer.js";
import { KirimbayarInboxWorker } from "./inbox-worker.service.js";
import type { KirimbayarModuleExtras, KirimbayarModuleOptions } from "./options.js";
import { KirimbayarReconciler } from "./reconciler.service.js";
import {
  KIRIMBAYAR_CONSOLE,
  KIRIMBAYAR_CONSOLE_ROUTE,
  KIRIMBAYAR_OPTIONS_FOR_INBOX_WORKER,
  KIRIMBAYAR_OPTIONS_FOR_RECONCILER,
  KIRIMBAYAR_WEBHOOK_PATH,
  KIRIMBAYAR_WEBHOOK_ROUTES,
} from "./tokens.js";
import { createWebhookController } from "./webhook-controller.js";
import { buildWebhookRoutes } from "./webhook-routes.js";

const definition = new ConfigurableModuleBuilder<KirimbayarModuleOptions>({ moduleName: "Kirimbayar" })
  .setClassMethodName("forRoot")
  .setExtras<KirimbayarModuleExtras>({ isGlobal: false, webhookPath: "webhooks" }, (module, extras) => {
    // Routes and guards are fixed here, when the module is defined; the console itself comes from the options.
    const consoleRoute = consoleRouteOf(extras.console);
    return {
      ...module,
      global: extras.isGlobal ?? false,
      controllers: [
        createWebhookController(extras.webhookPath ?? "webhooks"),
        ...(consoleRoute === undefined ? [] : [consoleController(consoleRoute)]),
      ],
      providers: [
        ...(module.providers ?? []),
        { provide: KIRIMBAYAR_WEBHOOK_PATH, useValue: extras.webhookPath ?? "webhooks" },
        { provide: KIRIMBAYAR_CONSOLE_ROUTE, useValue: consoleRoute ?? null },
      ],
    };
  })
  .build();

/** Injection token of the resolved {@link KirimbayarModuleOptions}. */
export const KIRIMBAYAR_MODULE_OPTIONS = definition.MODULE_OPTIONS_TOKEN;

/**
 * The kirimbayar NestJS module: injectable API clients, a webhook controller at `<webhookPath>/<source>`, and
 * handlers found on your providers through `@OnQrisEvent()`, `@OnPaymentCallback()` and `@OnOrderStatus()`.
 * On Express create the app with `NestFactory.create(AppModule, { rawBody: true })`; on Fastify
 * (`NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter())`) nothing more is needed.
 * With `inbox: { queue }` the webhooks are queued and a worker started with the app runs them (`KirimbayarInboxWorker`).
 * With `console: { handler, guards }` it serves the webhook console at the console's `basePath`; with
 * `forRootAsync({ console: { basePath, guards }, useFactory })` the factory returns `console: { handler }`, built from
 * what it injects (the app's `DataSource`, the journal the receivers write).
 *
 * @example
 * KirimbayarModule.forRoot({
 *   isGlobal: true,
 *   clients: { qris: { apiKey: process.env.QRIS_API_KEY!, baseUrl: "https://api.example.id" } },
 *   webhooks: { qris: { verify: [tokenVerifier({ secrets: [process.env.QRIS_WEBHOOK_TOKEN!] })] } },
 * })
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    {
      provide: KIRIMBAYAR_WEBHOOK_ROUTES,
      useFactory: buildWebhookRoutes,
      inject: [definition.MODULE_OPTIONS_TOKEN],
    },
    allClientsProvider(definition.MODULE_OPTIONS_TOKEN),
    WebhookHandlerExplorer,
    BodyParserErrorBridge,
    { provide: KIRIMBAYAR_OPTIONS_FOR_RECONCILER, useExisting: definition.MODULE_OPTIONS_TOKEN },
    KirimbayarReconciler,
    { provide: KIRIMBAYAR_OPTIONS_FOR_INBOX_WORKER, useExisting: definition.MODULE_OPTIONS_TOKEN },
    KirimbayarInboxWorker,
    {
      provide: KIRIMBAYAR_CONSOLE,
      useFactory: (options: KirimbayarModuleOptions, route: ConsoleRoute | null, reconciler: KirimbayarReconciler) =>
        resolveConsole(options, route, { reconciler }),
      inject: [definition.MODULE_OPTIONS_TOKEN, KIRIMBAYAR_CONSOLE_ROUTE, KirimbayarReconciler],
    },
  ],
  exports: [KirimbayarReconciler, KirimbayarInboxWorker],
})
export class KirimbayarModule extends definition.ConfigurableModuleClass {
  /** Configures the module from a plain object; provides exactly the clients in `options.clients`. */
  static override forRoot(options: typeof definition.OPTIONS_TYPE): DynamicModule {
    // biome-ignore lint/complexity/noThisInStatic: the builder's forRoot makes `this` class the dynamic module.
    return withClients(super.forRoot(options), configuredClientNames(options.clients));
  }

  /** Configures the module from a factory; provides the clients listed in `provideClients`. */
  static override forRootAsync(options: typeof definition.ASYNC_OPTIONS_TYPE): DynamicModule {
    // biome-ignore lint/complexity/noThisInStatic: the builder's forRootAsync makes `this` class the dynamic module.
    return withClients(super.forRootAsync(options), options.provideClients ?? []);
  }
}

function withClients(module: DynamicModule, names: Parameters<typeof clientProviders>[0]): DynamicModule {
  return {
    ...module,
    providers: [...(module.providers ?? []), ...clientProviders(names)],
    exports: [...(module.exports ?? []), KirimbayarReconciler, KirimbayarInboxWorker, ...names.map(clientClassOf)],
  };
}
