import { createGracefulShutdown, type GracefulShutdown } from "@kirimbayar/core/shutdown";
import {
  CONSOLE_PATH,
  createShopConsole,
  createShopQuoting,
  type OrderRepository,
  pendingPaymentReferences,
  Shop,
  type ShopConfig,
  type ShopQuoting,
  ShopWebhookHandlers,
  shopSecrets,
  shopVerifiers,
} from "@kirimbayar/example-shop-domain";
import {
  KirimbayarModule,
  type KirimbayarModuleOptions,
  KirimbayarShutdownModule,
  PaymentGatewayClient,
  QrisClient,
  ShippingClient,
} from "@kirimbayar/nestjs";
import { type DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from "@nestjs/common";
import { DataSource } from "typeorm";
import { openShopDatabase, type ShopDatabase } from "./database/shop-database.js";
import { HealthController } from "./health.controller.js";
import { OrdersController } from "./orders.controller.js";
import { PublicUrl } from "./public-url.js";
import { ShippingController } from "./shipping.controller.js";
import {
  ORDER_REPOSITORY,
  SHOP,
  SHOP_CONFIG,
  SHOP_DATABASE,
  SHOP_DRILL,
  SHOP_QUOTING,
  SHOP_WEBHOOK_HANDLERS,
} from "./tokens.js";
import { WebhookEvents } from "./webhook-events.js";

/** Options of {@link ShopModule.forRoot} besides the configuration. */
export interface ShopModuleOptions {
  /** `fetch` for the API clients (tests and the demo pass the fake provider's). */
  fetch?: typeof fetch;
  now?: () => Date;
  /** The graceful shutdown the store is tracked by; default: one from `config.shutdown`. */
  shutdown?: GracefulShutdown;
}

/** Closes the database (and the embedded PostgreSQL, if any) when the app shuts down. */
class DatabaseLifecycle implements OnApplicationShutdown {
  constructor(@Inject(SHOP_DATABASE) private readonly database: ShopDatabase) {}

  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
  }
}

/** Closes the rate quoter's Redis connection (if any) when the app shuts down. */
class QuotingLifecycle implements OnApplicationShutdown {
  constructor(@Inject(SHOP_QUOTING) private readonly quoting: ShopQuoting) {}

  async onApplicationShutdown(): Promise<void> {
    await this.quoting.close();
  }
}

/** Configuration and infrastructure the rest of the shop (and `KirimbayarModule`'s factory) injects. */
@Global()
@Module({})
class ShopInfrastructureModule {
  static forRoot(config: ShopConfig): DynamicModule {
    return {
      module: ShopInfrastructureModule,
      providers: [
        { provide: SHOP_CONFIG, useValue: config },
        { provide: SHOP_DATABASE, useFactory: () => openShopDatabase(config.databaseUrl) },
        // TypeORM's DataSource as an app provider, as `TypeOrmModule` provides it in a NestJS app.
        { provide: DataSource, inject: [SHOP_DATABASE], useFactory: (database: ShopDatabase) => database.dataSource },
        { provide: PublicUrl, useValue: new PublicUrl(config.publicBaseUrl) },
        { provide: ORDER_REPOSITORY, inject: [SHOP_DATABASE], useFactory: (database: ShopDatabase) => database.orders },
        DatabaseLifecycle,
      ],
      exports: [SHOP_CONFIG, SHOP_DATABASE, DataSource, PublicUrl, ORDER_REPOSITORY],
    };
  }
}

/**
 * The kirimbayar part of the shop: API clients injectable by class, the webhook controller at
 * `/webhooks/{qris,payment,orders}` verified the same way as in the Express and Hono shops, each delivery journalled
 * in the shop's database, and the webhook console at `/kirimbayar/console`.
 */
function kirimbayarModule(config: ShopConfig, options: ShopModuleOptions, shutdown: GracefulShutdown): DynamicModule {
  return KirimbayarModule.forRootAsync({
    isGlobal: true,
    // Where the console is served, fixed when the module is defined; the console itself comes from the factory.
    // Behind the console's own password (HTTP Basic); an app with its own login would add `guards: [AuthGuard]`.
    console: { basePath: CONSOLE_PATH },
    provideClients: [
      "shipping",
      "qris",
      "paymentGateway",
      ...(config.orders === undefined ? [] : ["orderWebhook" as const]),
    ],
    inject: [SHOP_CONFIG, SHOP_DATABASE, ORDER_REPOSITORY],
    useFactory: (config: ShopConfig, database: ShopDatabase, orders: OrderRepository): KirimbayarModuleOptions => {
      const fetchOption = options.fetch === undefined ? {} : { fetch: options.fetch };
      const verify = shopVerifiers({
        webhookSecret: config.webhookSecret,
        callbackApiKey: config.payment.callbackApiKey,
      });
      // The store and the journal run through TypeORM (typeormBinding on the injected DataSource's database): each
      // webhook's handlers get the transaction's EntityManager as ctx.transaction, and the order update, the event's
      // record and the delivery's journal entry commit together. The store is tracked by the graceful shutdown, which
      // ends the transactions still open when the app stops (KirimbayarShutdownModule).
      const store = shutdown.track(database.store);
      const { journal } = database;
      const idempotencyOption = { idempotency: { store, transactional: true }, journal };
      return {
        clients: {
          shipping: { apiKey: config.shipping.apiKey, baseUrl: config.shipping.baseUrl, ...fetchOption },
          qris: { apiKey: config.qris.apiKey, baseUrl: config.qris.baseUrl, ...fetchOption },
          paymentGateway: { apiKey: config.payment.apiKey, baseUrl: config.payment.baseUrl, ...fetchOption },
          ...(config.orders === undefined ? {} : { orderWebhook: { ...config.orders, ...fetchOption } }),
        },
        webhooks: {
          qris: { verify: verify.qris, ...idempotencyOption },
          payment: { verify: verify.payment, ...idempotencyOption },
          orders: { verify: verify.orders, ...idempotencyOption },
        },
        // Each reconciler run is journalled for the console's overview.
        reconcileOptions: { journal },
        // The console reads the journal the receivers write and each event's record in the store; "reconcile now" runs
        // through the module's reconciler.
        console: {
          handler: ({ reconciler }) =>
            createShopConsole({
              journal,
              password: config.console.password,
              store,
              reconciler,
              secrets: shopSecrets(config),
            }),
        },
        // Payments whose webhooks all failed are found by asking the provider; started and stopped with the app.
        ...(config.reconcileEveryMs === 0
          ? {}
          : { reconcile: { every: config.reconcileEveryMs, pending: () => pendingPaymentReferences(orders) } }),
      };
    },
  });
}

/**
 * The NestJS shop. Create the app with `rawBody: true` so webhook signatures are checked over the exact bytes.
 *
 * @example
 * const app = await NestFactory.create(ShopModule.forRoot(loadShopConfig(process.env)), { rawBody: true });
 */
@Module({})
// biome-ignore lint/complexity/noStaticOnlyClass: a Nest dynamic module is a class with a static `forRoot`.
export class ShopModule {
  static forRoot(config: ShopConfig, options: ShopModuleOptions = {}): DynamicModule {
    const now = options.now ?? (() => new Date());
    const shutdown =
      options.shutdown ??
      createGracefulShutdown({ graceMs: config.shutdown.graceMs, unreadyDelayMs: config.shutdown.unreadyDelayMs });
    return {
      module: ShopModule,
      imports: [
        ShopInfrastructureModule.forRoot(config),
        // On SIGTERM (app.enableShutdownHooks): /readyz 503, drain, release what still runs, then Nest closes the rest.
        KirimbayarShutdownModule.forRoot(shutdown),
        kirimbayarModule(config, options, shutdown),
      ],
      controllers: [HealthController, ShippingController, OrdersController],
      providers: [
        // The checkout's rate quoter on the module's shipping client (prices in Redis when REDIS_URL is set).
        {
          provide: SHOP_QUOTING,
          inject: [ShippingClient],
          useFactory: (shipping: ShippingClient) => createShopQuoting(config, shipping),
        },
        QuotingLifecycle,
        {
          provide: SHOP,
          inject: [ShippingClient, QrisClient, PaymentGatewayClient, ORDER_REPOSITORY, PublicUrl, SHOP_QUOTING],
          useFactory: (
            shipping: ShippingClient,
            qris: QrisClient,
            payment: PaymentGatewayClient,
            orders: OrderRepository,
            publicUrl: PublicUrl,
            quoting: ShopQuoting,
          ) =>
            new Shop({
              clients: { shipping, qris, payment },
              quoter: quoting.quoter,
              orders,
              originId: config.shipping.originId,
              qrisId: config.qris.qrisId,
              callbackApiKey: config.payment.callbackApiKey,
              publicBaseUrl: () => publicUrl.value,
              now,
            }),
        },
        {
          provide: SHOP_WEBHOOK_HANDLERS,
          inject: [ORDER_REPOSITORY],
          useFactory: (orders: OrderRepository) => new ShopWebhookHandlers(orders, now),
        },
        // Deploy drills: the wait before each handler (SHOP_WEBHOOK_DELAY_MS), ended by the shutdown's grace period.
        { provide: SHOP_DRILL, useValue: { delayMs: config.webhookDelayMs, signal: shutdown.signal } },
        WebhookEvents,
      ],
      exports: [SHOP, SHOP_WEBHOOK_HANDLERS],
    };
  }
}
