import {
  OrderWebhookClient,
  PaymentGatewayClient,
  QrisClient,
  ShippingClient,
  ShippingProClient,
  ShippingStarterClient,
} from "@kirimbayar/core";
import type { MiddlewareHandler } from "hono";
import { perEnv } from "./per-env.js";

const clientClasses = {
  paymentGateway: PaymentGatewayClient,
  qris: QrisClient,
  shipping: ShippingClient,
  shippingPro: ShippingProClient,
  shippingStarter: ShippingStarterClient,
  orderWebhook: OrderWebhookClient,
} as const;

type ClientClasses = typeof clientClasses;

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
 * const { qris } = createClients({ qris: { apiKey: process.env.QRIS_API_KEY!, baseUrl: "https://api.example.id" } });
 */
export function createClients<O extends KirimbayarClientsOptions>(options: O): KirimbayarClients<O> {
  const clients: Record<string, unknown> = {};
  for (const name of Object.keys(clientClasses) as KirimbayarClientName[]) {
    const config = options[name];
    if (config === undefined) continue;
    const Client = clientClasses[name] as new (options: unknown) => object;
    clients[name] = config instanceof Client ? config : new Client(config);
  }
  return clients as KirimbayarClients<O>;
}

/** Hono variables set by {@link kirimbayarClients}: read them with `c.var.kirimbayar`. */
export interface KirimbayarVariables {
  kirimbayar: Partial<KirimbayarClients>;
}

/**
 * Hono middleware that puts the configured API clients in `c.var.kirimbayar`. Pass a function of `c.env` to read
 * keys from Workers bindings; its result is built once per env object and reused.
 *
 * @example
 * app.use(kirimbayarClients((env: { QRIS_API_KEY: string }) => ({ qris: { apiKey: env.QRIS_API_KEY, baseUrl } })));
 * app.post("/checkout", (c) => c.json(c.var.kirimbayar.qris !== undefined));
 */
export function kirimbayarClients<Bindings extends object = object>(
  config: KirimbayarClientsOptions | ((env: Bindings) => KirimbayarClientsOptions),
): MiddlewareHandler<{ Bindings: Bindings; Variables: KirimbayarVariables }> {
  const clientsFor = perEnv((env: Bindings) => createClients(typeof config === "function" ? config(env) : config));
  return async (c, next) => {
    c.set("kirimbayar", clientsFor(c.env));
    await next();
  };
}
