import { createClients, type KirimbayarClients, type KirimbayarClientsOptions } from "@kirimbayar/core";
import type { MiddlewareHandler } from "hono";
import { perEnv } from "./per-env.js";

/** Hono variables set by {@link kirimbayarClients}: read them with `c.var.kirimbayar`. */
export interface KirimbayarVariables {
  kirimbayar: Partial<KirimbayarClients>;
}

/**
 * Hono middleware that puts the configured API clients in `c.var.kirimbayar`. Pass a function of `c.env` to read
 * keys from Workers bindings; its result is built once per set of bindings and reused.
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
