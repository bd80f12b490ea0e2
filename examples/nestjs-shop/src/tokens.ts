/** Injection token of the validated {@link ShopConfig}. */
export const SHOP_CONFIG = Symbol("shop:config");
/** Injection token of the {@link ShopIdempotency} (the webhook idempotency store). */
export const SHOP_IDEMPOTENCY = Symbol("shop:idempotency");
/** Injection token of the shop's {@link OrderRepository}. */
export const ORDER_REPOSITORY = Symbol("shop:orders");
/** Injection token of the {@link Shop} service. */
export const SHOP = Symbol("shop:shop");
/** Injection token of the {@link ShopWebhookHandlers}. */
export const SHOP_WEBHOOK_HANDLERS = Symbol("shop:webhook-handlers");
