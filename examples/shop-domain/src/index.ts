// The example shop's framework-neutral logic, shared by the Express, Hono and NestJS example shops.
export { loadShopConfig, type ShopConfig, ShopConfigError, shopEnvSchema } from "./config.js";
export { CONSOLE_PATH, CONSOLE_USER, createShopConsole, type ShopConsoleOptions } from "./console.js";
export { openShopDatabase, type ShopDatabase } from "./database.js";
export { type EmbeddedPostgres, startEmbeddedPostgres } from "./embedded-postgres.js";
export { ShopError, type ShopErrorCode, shopErrorStatus, toShopError } from "./errors.js";
export { logEvent, rupiah } from "./event-log.js";
export { HEALTH_PATHS, liveness, type ProbeAnswer, readiness } from "./health.js";
export { createIdempotencyStore, type ShopIdempotency } from "./idempotency.js";
export type {
  ChosenShipping,
  Customer,
  Order,
  OrderEvent,
  OrderItem,
  OrderStatus,
  PaymentState,
  QrisPayment,
  VaPayment,
} from "./order.js";
export { InMemoryOrderRepository, type OrderRepository } from "./order-repository.js";
export { PostgresOrderRepository, type RunInTransaction, SHOP_ORDERS_SCHEMA } from "./postgres-order-repository.js";
export { checkedQrisString, qrImageDataUrl, qrTerminalText } from "./qr.js";
export {
  createShopReceivers,
  drillDelay,
  type ShopReceivers,
  type ShopReceiversDrill,
  type ShopWebhookSecrets,
  shopVerifiers,
  webhookUrls,
} from "./receivers.js";
export { pendingPaymentReferences } from "./reconciliation.js";
export {
  type CreateOrderRequest,
  createOrderRequestSchema,
  type DestinationSearchRequest,
  destinationSearchRequestSchema,
  type PayByVaRequest,
  parseRequest,
  payByVaRequestSchema,
  type QuoteRequest,
  quoteRequestSchema,
} from "./requests.js";
export { createShopRuntime, type ShopRuntime, type ShopRuntimeOptions, shopSecrets } from "./runtime.js";
export { type CostOption, type QuoteOption, rankCostOptions } from "./shipping-quote.js";
export { type CreatedOrder, type DestinationView, Shop, type ShopClients, type ShopOptions } from "./shop.js";
export {
  consoleGreeting,
  type ListeningServer,
  onShutdownSignal,
  type RunningShop,
  runShopFromEnv,
  type StartShopOptions,
  serveShop,
} from "./start-shop.js";
export { type EventOrigin, ShopWebhookHandlers, type UnmatchedWebhook } from "./webhook-handlers.js";
