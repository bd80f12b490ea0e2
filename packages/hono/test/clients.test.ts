import { PaymentGatewayClient, QrisClient } from "@kirimbayar/core";
import { Hono } from "hono";
import { describe, expect, it, vi } from "vitest";
import { kirimbayarClients } from "../src/index.js";

type Bindings = { QRIS_API_KEY: string };
const baseUrl = "https://api.example.test";

describe("kirimbayarClients", () => {
  it("puts exactly the configured clients in c.var.kirimbayar, built once per env object", async () => {
    const config = vi.fn((env: Bindings) => ({ qris: { apiKey: env.QRIS_API_KEY, baseUrl } }));
    const app = new Hono<{ Bindings: Bindings }>()
      .use(kirimbayarClients(config))
      .get("/", (c) =>
        c.json({ names: Object.keys(c.var.kirimbayar), qris: c.var.kirimbayar.qris instanceof QrisClient }),
      );
    const env = { QRIS_API_KEY: "key-from-binding" };
    const response = await app.request("/", {}, env);
    await app.request("/", {}, env);
    expect(await response.json()).toEqual({ names: ["qris"], qris: true });
    expect(config).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(await (await app.request("/", {}, env)).text())).not.toContain("key-from-binding");
  });

  it("takes a static configuration and ready clients", async () => {
    const payment = new PaymentGatewayClient({ apiKey: "k", baseUrl });
    let seen: unknown;
    const app = new Hono().use(kirimbayarClients({ paymentGateway: payment })).get("/", (c) => {
      seen = c.var.kirimbayar.paymentGateway;
      return c.text("ok");
    });
    await app.request("/");
    expect(seen).toBe(payment);
  });
});
