/** Injection token of the validated {@link ShopConfig}. */
export const SHOP_CONFIG = Symbol("shop:config");
/** Injection token of the shop's database (TypeORM's DataSource, the orders and the idempotency store). */
export const SHOP_DATABASE = Symbol("shop:database");
/** Injection token of the shop's {@link OrderRepository}. */
export const ORDER_REPOSITORY = Symbol("shop:orders");
/** Injection token of the {@link Shop} service. */
export const SHOP = Symbol("shop:shop");
/** Injection token of the {@link ShopWebhookHandlers}. */
export const SHOP_WEBHOOK_HANDLERS = Symbol("shop:webhook-handlers");
/** Injection token of the deploy-drill settings of the webhook handlers (`ShopReceiversDrill`). */
export const SHOP_DRILL = Symbol("shop:drill");
/** Injection token of the shop's rate quoter and its connection ({@link ShopQuoting}). */
export const SHOP_QUOTING = Symbol("shop:quoting");
