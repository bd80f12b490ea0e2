/** An environment loadShopConfig accepts: every required variable set, no optional one. */
export const VALID_ENV = {
  PORT: "4000",
  KIRIMBAYAR_PAYMENT_API_KEY: "pay-key-secret-value",
  KIRIMBAYAR_PAYMENT_BASE_URL: "https://payment.example.test",
  KIRIMBAYAR_QRIS_ID: "7",
  KIRIMBAYAR_CALLBACK_API_KEY: "callback-key-0123456789",
  KIRIMBAYAR_SHIPPING_API_KEY: "ship-key-secret-value",
  KIRIMBAYAR_SHIPPING_BASE_URL: "https://shipping.example.test",
  KIRIMBAYAR_WEBHOOK_SECRET: "webhook-secret-0123456789",
  SHOP_ORIGIN_ID: "501",
} as const;
