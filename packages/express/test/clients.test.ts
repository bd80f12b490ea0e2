import { QrisClient, ShippingClient } from "@kirimbayar/core";
import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createClients, kirimbayarClients } from "../src/index.js";

const options = { apiKey: "secret-api-key-123", baseUrl: "https://api.example.test" };

describe("kirimbayarClients", () => {
  it("puts exactly the configured clients on res.locals.kirimbayar, built once for every request", async () => {
    const middleware = kirimbayarClients({ qris: options, shipping: options });
    const seen: unknown[] = [];
    const app = express()
      .use(middleware)
      .get("/", (_req, res) => {
        const clients = res.locals.kirimbayar;
        seen.push(clients?.qris);
        res.json({
          names: Object.keys(clients ?? {}).sort(),
          qris: clients?.qris instanceof QrisClient,
          shipping: clients?.shipping instanceof ShippingClient,
        });
      });
    const first = await request(app).get("/");
    await request(app).get("/");
    expect(first.body).toEqual({ names: ["qris", "shipping"], qris: true, shipping: true });
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0]).toBe(middleware.clients.qris);
  });

  it("uses a ready client as is and never shows the API key", () => {
    const qris = new QrisClient(options);
    const clients = createClients({ qris });
    expect(clients.qris).toBe(qris);
    expect(JSON.stringify(clients)).not.toContain(options.apiKey);
  });
});
