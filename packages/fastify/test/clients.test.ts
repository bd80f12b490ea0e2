import { QrisClient, ShippingClient } from "@kirimbayar/core";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { createClients, kirimbayarClients } from "../src/index.js";

const options = { apiKey: "secret-api-key-123", baseUrl: "https://api.example.test" };

describe("kirimbayarClients", () => {
  it("decorates the whole app with exactly the configured clients, built once for every request", async () => {
    const plugin = kirimbayarClients({ qris: options, shipping: options });
    const app = Fastify();
    await app.register(plugin);
    const seen: unknown[] = [];
    // An encapsulated plugin registered beside it sees the decoration too (fastify-plugin).
    app.register(async (scoped) => {
      scoped.get("/", async (request) => {
        const clients = request.server.kirimbayar;
        seen.push(clients.qris);
        return {
          names: Object.keys(clients).sort(),
          qris: clients.qris instanceof QrisClient,
          shipping: clients.shipping instanceof ShippingClient,
        };
      });
    });
    const first = await app.inject({ method: "GET", url: "/" });
    await app.inject({ method: "GET", url: "/" });
    expect(first.json()).toEqual({ names: ["qris", "shipping"], qris: true, shipping: true });
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0]).toBe(plugin.clients.qris);
    expect(app.kirimbayar).toBe(plugin.clients);
    expect(first.body).not.toContain(options.apiKey);
    await app.close();
  });

  it("uses a ready client as is and never shows the API key", () => {
    const qris = new QrisClient(options);
    const clients = createClients({ qris });
    expect(clients.qris).toBe(qris);
    expect(kirimbayarClients({ qris }).clients.qris).toBe(qris);
    expect(JSON.stringify(clients)).not.toContain(options.apiKey);
  });

  it("refuses to decorate an app twice", async () => {
    const app = Fastify();
    app.register(kirimbayarClients({ qris: options }));
    app.register(kirimbayarClients({ qris: options }));
    await expect(app.ready()).rejects.toThrow(/kirimbayar/);
  });
});
