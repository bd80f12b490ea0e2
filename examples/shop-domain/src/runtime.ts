import type { WebhookConsole } from "@kirimbayar/console";
import {
  createReconciler,
  OrderWebhookClient,
  PaymentGatewayClient,
  QrisClient,
  type Reconciler,
  type RunningReconciler,
  ShippingClient,
} from "@kirimbayar/core";
import { type DeliveryJournal, MemoryDeliveryJournal } from "@kirimbayar/core/journal";
import { createGracefulShutdown, type GracefulShutdown } from "@kirimbayar/core/shutdown";
import type { IdempotencyStore } from "@kirimbayar/core/webhooks";
import type { InboxWorker } from "@kirimbayar/inbox";
import type { ShopConfig } from "./config.js";
import { createShopConsole } from "./console.js";
import { openShopDatabase, type ShopDatabase } from "./database.js";
import { createIdempotencyStore, type ShopIdempotency } from "./idempotency.js";
import { openShopInbox, type ShopInbox } from "./inbox.js";
import { InMemoryOrderRepository, type OrderRepository } from "./order-repository.js";
import { createShopReceivers, type ShopReceivers, webhookUrls } from "./receivers.js";
import { pendingPaymentReferences } from "./reconciliation.js";
import { Shop, type ShopClients } from "./shop.js";
import { ShopWebhookHandlers } from "./webhook-handlers.js";

/** Options of {@link createShopRuntime}. */
export interface ShopRuntimeOptions {
  /** `fetch` the API clients use; tests pass the fake provider's in-process `fetch`. */
  fetch?: typeof fetch;
  now?: () => Date;
  /** Where the payment services reach the shop, once known (after `listen` when the port is chosen by the OS). */
  publicBaseUrl: () => string;
  /**
   * Opens the shop's own database (the Fastify shop's, through Prisma), used whatever `SHOP_DATABASE` says; without
   * it, PostgreSQL through `pg` with `SHOP_DATABASE=postgres`, else orders in memory.
   */
  // biome-ignore lint/suspicious/noExplicitAny: each shop's database has its own transaction type.
  database?: ((config: ShopConfig) => Promise<ShopDatabase<any>>) | undefined;
  /** The graceful shutdown the store is tracked by; default: one from `config.shutdown`. */
  shutdown?: GracefulShutdown;
}

/** Everything a framework needs to serve the shop: the shop, its webhook handlers and receivers, and the clients. */
export interface ShopRuntime {
  config: ShopConfig;
  shop: Shop;
  handlers: ShopWebhookHandlers;
  receivers: ShopReceivers;
  orders: OrderRepository;
  clients: ShopClients & { orderWebhook: OrderWebhookClient | undefined };
  /** The webhooks' idempotency store, tracked by {@link ShopRuntime.shutdown}. */
  store: IdempotencyStore;
  /**
   * The graceful shutdown on SIGTERM (see `runShopFromEnv`): `ready` for `/readyz`, and the claims this process
   * holds, released if their deliveries outlast the grace period.
   */
  shutdown: GracefulShutdown;
  /**
   * `"redis"` when `REDIS_URL` is set (with SHOP_DATABASE=postgres the orders stay in PostgreSQL, the handlers not
   * transactional), else `"postgres"`/`"pglite"` with SHOP_DATABASE=postgres (orders and records in one database,
   * transactional handlers), `"memory"` otherwise.
   */
  storeKind: "redis" | "memory" | "postgres" | "pglite";
  /**
   * Where the receivers journal every delivery: the shop's PostgreSQL with SHOP_DATABASE=postgres, else memory (the
   * console then shows this process's deliveries).
   */
  journal: DeliveryJournal;
  /** The webhook console, served by each framework at `console.basePath` (`/kirimbayar/console`). */
  console: WebhookConsole;
  /** Registers the order webhook URL with the order service, when it is configured. */
  registerOrderWebhook(): Promise<string | undefined>;
  /** Asks the provider about every payment still pending, through the shop's receivers (see `createReconciler`). */
  reconciler: Reconciler;
  /** Starts reconciling every `config.reconcileEveryMs` (unless 0); stopped by `close()`. */
  startReconciling(): void;
  /** The durable inbox (SHOP_INBOX=pg-boss): the webhooks are queued, and its worker applies them. */
  inbox: ShopInbox | undefined;
  /** Starts the inbox's worker on the shop's receivers (nothing without an inbox); the graceful shutdown stops it. */
  startInboxWorker(): Promise<void>;
  /** The running inbox worker, once started. */
  readonly inboxWorker: InboxWorker | undefined;
  /** Stops reconciling and releases what the runtime opened (the Redis connection). */
  close(): Promise<void>;
}

/**
 * Builds the shop from its configuration: API clients, in-memory orders, the idempotency store (Redis when
 * `REDIS_URL` is set), the webhook handlers and receivers. Framework-neutral: each example serves it its own way.
 *
 * @example
 * const runtime = await createShopRuntime(loadShopConfig(process.env), { publicBaseUrl: () => "https://shop.example" });
 * const { order } = await runtime.shop.createOrder(body);
 */
export async function createShopRuntime(config: ShopConfig, options: ShopRuntimeOptions): Promise<ShopRuntime> {
  const fetchOption = options.fetch === undefined ? {} : { fetch: options.fetch };
  const clients = {
    shipping: new ShippingClient({ apiKey: config.shipping.apiKey, baseUrl: config.shipping.baseUrl, ...fetchOption }),
    qris: new QrisClient({ apiKey: config.qris.apiKey, baseUrl: config.qris.baseUrl, ...fetchOption }),
    payment: new PaymentGatewayClient({
      apiKey: config.payment.apiKey,
      baseUrl: config.payment.baseUrl,
      ...fetchOption,
    }),
    orderWebhook:
      config.orders === undefined
        ? undefined
        : new OrderWebhookClient({ apiKey: config.orders.apiKey, baseUrl: config.orders.baseUrl, ...fetchOption }),
  };
  // Orders and webhook records in one PostgreSQL database (transactional handlers), or orders in memory.
  const database: ShopDatabase<unknown> | undefined =
    options.database !== undefined
      ? await options.database(config)
      : config.database === "postgres"
        ? ((await openShopDatabase(config.databaseUrl)) as ShopDatabase<unknown>)
        : undefined;
  const orders: OrderRepository = database?.orders ?? new InMemoryOrderRepository();
  const now = options.now ?? (() => new Date());
  const shop = new Shop({
    clients,
    orders,
    originId: config.shipping.originId,
    couriers: config.shipping.couriers,
    qrisId: config.qris.qrisId,
    callbackApiKey: config.payment.callbackApiKey,
    publicBaseUrl: options.publicBaseUrl,
    now,
  });
  const handlers = new ShopWebhookHandlers(orders, now);
  // REDIS_URL takes the records wherever the orders are; without it, a database keeps both (one transaction each).
  const recordsInDatabase = database !== undefined && config.redisUrl === undefined;
  const idempotency: ShopIdempotency = recordsInDatabase
    ? { store: database.store, kind: database.kind, close: async () => {} }
    : await createIdempotencyStore(config.redisUrl);
  const shutdown =
    options.shutdown ??
    createGracefulShutdown({ graceMs: config.shutdown.graceMs, unreadyDelayMs: config.shutdown.unreadyDelayMs });
  // Every claim of this process goes through the shutdown, which releases those still held when it stops.
  const store = shutdown.track(idempotency.store);
  // Beside the records in the shop's PostgreSQL when it has one (each entry commits with its delivery), else memory.
  const journal: DeliveryJournal = database?.journal ?? new MemoryDeliveryJournal();
  const inbox = config.inbox === "pg-boss" ? await openShopInbox(config.databaseUrl as string) : undefined;
  let inboxWorker: InboxWorker | undefined;
  const receivers = createShopReceivers(
    { webhookSecret: config.webhookSecret, callbackApiKey: config.payment.callbackApiKey },
    handlers,
    store,
    recordsInDatabase ? { ordersWithin: (transaction) => database.ordersWithin(transaction) } : undefined,
    journal,
    { delayMs: config.webhookDelayMs, signal: shutdown.signal },
    inbox?.queue,
  );

  const reconciler = createReconciler({
    receivers: { qris: receivers.qris, payment: receivers.payment },
    clients: { qris: clients.qris, payment: clients.payment },
    // Each run is journalled for the console's overview (what it asked about, what it found).
    journal,
  });
  let reconciling: RunningReconciler | undefined;
  const webConsole = createShopConsole({
    journal,
    password: config.console.password,
    store,
    reconciler,
    secrets: shopSecrets(config),
  });

  return {
    config,
    shop,
    handlers,
    receivers,
    orders,
    clients,
    store,
    shutdown,
    storeKind: idempotency.kind,
    journal,
    console: webConsole,
    async registerOrderWebhook() {
      if (clients.orderWebhook === undefined) return undefined;
      const url = webhookUrls(options.publicBaseUrl(), config.webhookSecret).orders;
      await clients.orderWebhook.registerWebhook({ url });
      return url;
    },
    reconciler,
    startReconciling() {
      if (config.reconcileEveryMs === 0 || reconciling !== undefined) return;
      reconciling = reconciler.start({
        every: config.reconcileEveryMs,
        pending: () => pendingPaymentReferences(orders),
      });
    },
    inbox,
    async startInboxWorker() {
      if (inbox === undefined || inboxWorker !== undefined) return;
      inboxWorker = await inbox.startWorker(receivers);
    },
    get inboxWorker() {
      return inboxWorker;
    },
    async close() {
      await reconciling?.stop();
      await inboxWorker?.stop();
      await inbox?.close();
      await journal.close();
      await idempotency.close();
      await database?.close();
    },
  };
}

/** Every secret of the configuration: the console scrubs them from anything it shows. */
export function shopSecrets(config: ShopConfig): string[] {
  return [
    config.webhookSecret,
    config.payment.callbackApiKey,
    config.payment.apiKey,
    config.qris.apiKey,
    config.shipping.apiKey,
    ...(config.orders === undefined ? [] : [config.orders.apiKey]),
  ];
}
