import {
  OrderWebhookClient,
  PaymentGatewayClient,
  QrisClient,
  ShippingClient,
  ShippingProClient,
  ShippingStarterClient,
} from "@kirimbayar/core";
import type { RequestHandler } from "express";

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

declare global {
  namespace Express {
    interface Locals {
      /** API clients put here by {@link kirimbayarClients}. */
      kirimbayar?: Partial<KirimbayarClients>;
    }
  }
}

/**
 * Express middleware that puts the configured API clients on `res.locals.kirimbayar`. The clients are built once,
 * when the middleware is created, and shared by every request.
 *
 * @example
 * app.use(kirimbayarClients({ qris: { apiKey: process.env.QRIS_API_KEY!, baseUrl: "https://api.example.id" } }));
 * app.post("/checkout", async (req, res) => res.json((await res.locals.kirimbayar!.qris!.generateQris({ qris_id: 12, amount: 10_000, output_type: "string" })).data));
 */
export function kirimbayarClients(options: KirimbayarClientsOptions): RequestHandler & { clients: KirimbayarClients } {
  const clients = createClients(options);
  const middleware: RequestHandler = (_req, res, next) => {
    res.locals.kirimbayar = clients;
    next();
  };
  return Object.assign(middleware, { clients });
}
