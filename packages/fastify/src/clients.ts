import { createClients, type KirimbayarClients, type KirimbayarClientsOptions } from "@kirimbayar/core";
import type { FastifyPluginAsync } from "fastify";
import fastifyPlugin from "fastify-plugin";

declare module "fastify" {
  interface FastifyInstance {
    /** API clients decorated by {@link kirimbayarClients}: only the ones you configured are set. */
    kirimbayar: Partial<KirimbayarClients>;
  }
}

/** The plugin {@link kirimbayarClients} returns; `clients` holds the clients it decorates the instance with. */
export type KirimbayarClientsPlugin = FastifyPluginAsync & { readonly clients: KirimbayarClients };

/**
 * Fastify plugin that decorates the instance with the configured API clients as `fastify.kirimbayar` (in route
 * handlers: `request.server.kirimbayar` or `this.kirimbayar`). The clients are built once, when the plugin is
 * created, and shared by every request. Wrapped with `fastify-plugin`, so the decoration is visible to the whole app,
 * not only inside the plugin.
 *
 * @example
 * await app.register(kirimbayarClients({ qris: { apiKey: process.env.QRIS_API_KEY!, baseUrl: "https://api.example.id" } }));
 * app.post("/checkout", async (request) => (await request.server.kirimbayar.qris!.generateQris({ qris_id: 12, amount: 10_000, output_type: "string" })).data);
 */
export function kirimbayarClients(options: KirimbayarClientsOptions): KirimbayarClientsPlugin {
  const clients = createClients(options);
  // Async, so that a failure (the instance already decorated) rejects `register`/`ready` rather than escaping.
  const plugin = fastifyPlugin(
    async (fastify) => {
      fastify.decorate("kirimbayar", clients);
    },
    { name: "@kirimbayar/fastify:clients", fastify: "5.x" },
  );
  return Object.assign(plugin, { clients });
}
