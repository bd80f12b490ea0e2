import {
  createIdempotencyStore,
  InMemoryOrderRepository,
  type OrderRepository,
  pendingPaymentReferences,
  Shop,
  type ShopConfig,
  ShopConfigError,
  type ShopIdempotency,
  ShopWebhookHandlers,
  shopVerifiers,
} from "@kirimbayar/example-shop-domain";
import {
  KirimbayarModule,
  type KirimbayarModuleOptions,
  PaymentGatewayClient,
  QrisClient,
  ShippingClient,
} from "@kirimbayar/nestjs";
import { type DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from "@nestjs/common";
import { OrdersController } from "./orders.controller.js";
import { PublicUrl } from "./public-url.js";
import { ShippingController } from "./shipping.controller.js";
import { ORDER_REPOSITORY, SHOP, SHOP_CONFIG, SHOP_IDEMPOTENCY, SHOP_WEBHOOK_HANDLERS } from "./tokens.js";
import { WebhookEvents } from "./webhook-events.js";

/** Options of {@link ShopModule.forRoot} besides the configuration. */
export interface ShopModuleOptions {
  /** `fetch` for the API clients (tests and the demo pass the fake provider's). */
  fetch?: typeof fetch;
  now?: () => Date;
}

/** Closes the Redis connection of the idempotency store when the app shuts down. */
class IdempotencyLifecycle implements OnApplicationShutdown {
  constructor(@Inject(SHOP_IDEMPOTENCY) private readonly idempotency: ShopIdempotency) {}

  async onApplicationShutdown(): Promise<void> {
    await this.idempotency.close();
  }
}

/** Configuration and infrastructure the rest of the shop (and `KirimbayarModule`'s factory) injects. */
@Global()
@Module({})
class ShopInfrastructureModule {
  static forRoot(config: ShopConfig): DynamicModule {
    if (config.database !== "memory") {
      // Not silently ignored: the PostgreSQL variant (transactional handlers) is the Express and Hono shops'.
      throw new ShopConfigError([
        {
          variable: "SHOP_DATABASE",
          message: "the NestJS example keeps orders in memory; use the Hono or Express shop",
        },
      ]);
    }
    return {
      module: ShopInfrastructureModule,
      providers: [
        { provide: SHOP_CONFIG, useValue: config },
        { provide: SHOP_IDEMPOTENCY, useFactory: () => createIdempotencyStore(config.redisUrl) },
        { provide: PublicUrl, useValue: new PublicUrl(config.publicBaseUrl) },
        { provide: ORDER_REPOSITORY, useValue: new InMemoryOrderRepository() },
        IdempotencyLifecycle,
      ],
      exports: [SHOP_CONFIG, SHOP_IDEMPOTENCY, PublicUrl, ORDER_REPOSITORY],
    };
  }
}

/**
 * The kirimbayar part of the shop: API clients injectable by class, and the webhook controller at
 * `/webhooks/{qris,payment,orders}` verified the same way as in the Express and Hono shops.
 */
function kirimbayarModule(config: ShopConfig, options: ShopModuleOptions): DynamicModule {
  return KirimbayarModule.forRootAsync({
    isGlobal: true,
    provideClients: [
      "shipping",
      "qris",
      "paymentGateway",
      ...(config.orders === undefined ? [] : ["orderWebhook" as const]),
    ],
    inject: [SHOP_CONFIG, SHOP_IDEMPOTENCY, ORDER_REPOSITORY],
    useFactory: (
      config: ShopConfig,
      idempotency: ShopIdempotency,
      orders: OrderRepository,
    ): KirimbayarModuleOptions => {
      const fetchOption = options.fetch === undefined ? {} : { fetch: options.fetch };
      const verify = shopVerifiers({
        webhookSecret: config.webhookSecret,
        callbackApiKey: config.payment.callbackApiKey,
      });
      const idempotencyOption = { idempotency: { store: idempotency.store } };
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
    return {
      module: ShopModule,
      imports: [ShopInfrastructureModule.forRoot(config), kirimbayarModule(config, options)],
      controllers: [ShippingController, OrdersController],
      providers: [
        {
          provide: SHOP,
          inject: [ShippingClient, QrisClient, PaymentGatewayClient, ORDER_REPOSITORY, PublicUrl],
          useFactory: (
            shipping: ShippingClient,
            qris: QrisClient,
            payment: PaymentGatewayClient,
            orders: OrderRepository,
            publicUrl: PublicUrl,
          ) =>
            new Shop({
              clients: { shipping, qris, payment },
              orders,
              originId: config.shipping.originId,
              couriers: config.shipping.couriers,
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
        WebhookEvents,
      ],
      exports: [SHOP, SHOP_WEBHOOK_HANDLERS],
    };
  }
}
