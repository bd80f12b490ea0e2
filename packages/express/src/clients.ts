import { createClients, type KirimbayarClients, type KirimbayarClientsOptions } from "@kirimbayar/core";
import type { RequestHandler } from "express";

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
