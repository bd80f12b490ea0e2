import { OrderWebhookClient } from "../orders/index.js";
import { PaymentGatewayClient } from "../payment/index.js";
import { QrisClient } from "../qris/index.js";
import { ShippingClient, ShippingProClient, ShippingStarterClient } from "../shipping/index.js";

// One name → class table that every adapter (Express locals, Hono c.var, NestJS providers) builds clients from.
/**
 * The API client class of every client name, e.g. `KIRIMBAYAR_CLIENT_CLASSES.qris === QrisClient`.
 *
 * @example
 * const Client = KIRIMBAYAR_CLIENT_CLASSES.shipping; // ShippingClient
 */
export const KIRIMBAYAR_CLIENT_CLASSES = {
  paymentGateway: PaymentGatewayClient,
  qris: QrisClient,
  shipping: ShippingClient,
  shippingPro: ShippingProClient,
  shippingStarter: ShippingStarterClient,
  orderWebhook: OrderWebhookClient,
} as const;

type ClientClasses = typeof KIRIMBAYAR_CLIENT_CLASSES;

/** Names of the API clients the adapter can build. */
export type KirimbayarClientName = keyof ClientClasses;

/** Per client: its constructor options, or a client you built yourself. Leave out the ones you don't use. */
export type KirimbayarClientsOptions = {
  [K in KirimbayarClientName]?: InstanceType<ClientClasses[K]> | ConstructorParameters<ClientClasses[K]>[0];
};

/** The clients built from `O`: exactly the keys you configured. */
export type KirimbayarClients<O extends KirimbayarClientsOptions = KirimbayarClientsOptions> = {
  -readonly [K in keyof O & KirimbayarClientName]: InstanceType<ClientClasses[K]>;
};

/**
 * Builds the configured API clients once (a ready client is used as is).
 *
 * @example
 * const { qris } = createClients({ qris: { apiKey: env.QRIS_API_KEY, baseUrl: "https://api.example.id" } });
 */
export function createClients<O extends KirimbayarClientsOptions>(options: O): KirimbayarClients<O> {
  const clients: Record<string, unknown> = {};
  for (const name of Object.keys(KIRIMBAYAR_CLIENT_CLASSES) as KirimbayarClientName[]) {
    const config = options[name];
    if (config === undefined) continue;
    const Client = KIRIMBAYAR_CLIENT_CLASSES[name] as new (options: unknown) => object;
    clients[name] = config instanceof Client ? config : new Client(config);
  }
  return clients as KirimbayarClients<O>;
}
