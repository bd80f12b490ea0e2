export type { OrderOperation, OrderWebhookClientOptions } from "./client.js";
export { ORDER_PATHS, OrderWebhookClient, registerWebhookResultSchema } from "./client.js";
export type { RegisterWebhookInput } from "./input-schemas.js";
export { registerWebhookInputSchema } from "./input-schemas.js";
