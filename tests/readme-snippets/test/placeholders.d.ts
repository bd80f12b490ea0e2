// Names the snippets use for the reader's own code and values: typed loosely on purpose, since any shop's code
// fits. Package APIs are never declared here: snippets must get those from the packages (the test refuses a name one
// of our entry points exports, a name no snippet uses, and a name a page's other snippet declares as something
// else). A library object the reader brings (a Redis client, a DataSource) is typed by that library, or names it
// with an `@package` tag, so the page's install line must install it.
type OwnFunction = (...args: unknown[]) => Promise<void>;

declare function markPaid(...args: unknown[]): Promise<void>;
declare function markOrderPaid(...args: unknown[]): Promise<void>;
declare function markShipped(...args: unknown[]): Promise<void>;
declare function notifyShipped(...args: unknown[]): Promise<void>;
declare function showQr(qrString: string): void;
declare function saveQuote(...args: unknown[]): void;
declare function mountPost(
  path: string,
  handler: (request: import("@kirimbayar/core/webhooks").WebhookHttpRequest) => Promise<unknown>,
): void;
declare const handleOrderStatus: import("@kirimbayar/core/webhooks").WebhookHandler<
  import("@kirimbayar/core/webhooks").OrderStatusWebhook
>;
declare const orders: Record<string, OwnFunction>;
declare const order: { id: string };
declare const myQrImageUrl: string;
declare const token: string;
declare const key: string;
declare const baseUrl: string;
declare const redis: import("ioredis").Redis;
declare const verify: import("@kirimbayar/core/webhooks").RequestVerifier[];
declare const receiver: import("@kirimbayar/core/webhooks").WebhookReceiver;
declare class OrdersService {
  markPaid(...args: unknown[]): Promise<void>;
}
declare const db: { unpaidQrOrders(): Promise<{ historyId: string; finalAmount: number }[]> };
declare function alertOps(...args: unknown[]): void;
declare const inbox: import("@kirimbayar/inbox").InboxQueue;
// The webhook console's README (packages/console): the shop's own admin check, store and reconciler.
declare function adminFromSession(cookie: string | null): Promise<{ id: string } | undefined>;
declare function adminId(request: Request): string | undefined;
declare const qrisStore: import("@kirimbayar/core/postgres").PostgresIdempotencyStore;
declare const reconciler: import("@kirimbayar/core").Reconciler;
/** The shop's own generated PrismaClient (an `Order` model), as `prisma generate` would type it for the snippets. */
interface ShopPrismaOrders {
  update(args: { where: { qrisHistoryId: string }; data: { status: string } }): Promise<unknown>;
}
interface ShopPrismaTransaction {
  order: ShopPrismaOrders;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}
/** The shop's PrismaClient. @package @prisma/client */
declare const prisma: ShopPrismaTransaction & {
  $transaction<R>(
    fn: (tx: ShopPrismaTransaction) => Promise<R>,
    options?: { maxWait?: number; timeout?: number },
  ): Promise<R>;
  $disconnect(): Promise<void>;
};
/** The shop's initialised TypeORM DataSource and its `Order` entity. */
declare const dataSource: import("typeorm").DataSource;
declare class Order {
  qrisHistoryId: string;
  status: string;
}
