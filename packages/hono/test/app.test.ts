import { createHmac } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import {
  callbackKeyVerifier,
  createWebhookReceiver,
  tokenVerifier,
  WebhookConfigurationError,
} from "@kirimbayar/core/webhooks";
import { ipAllowlist } from "@kirimbayar/core/webhooks/ip-allowlist";
import { type Context, Hono } from "hono";
import { describe, expect, it, vi } from "vitest";
import { createWebhookApp } from "../src/index.js";

const order = JSON.stringify({ order_no: "ORD-9", cnote: "JP9", status: "Dikirim" });
const post = (app: Hono, path: string, body: BodyInit = order, headers: Record<string, string> = {}) =>
  app.request(path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

type Bindings = { ORDERS_TOKEN: string };

describe("createWebhookApp", () => {
  it("builds receivers from options and exposes them; unconfigured sources are not mounted", async () => {
    const webhooks = createWebhookApp({
      orders: { verify: [tokenVerifier({ secrets: ["t0ken"], in: "query", name: "token" })] },
    });
    const shipped = vi.fn();
    webhooks.receivers.orders?.onOrderStatus("dikirim", shipped);
    const app = new Hono().route("/webhooks", webhooks);
    expect((await post(app, "/webhooks/orders?token=t0ken")).status).toBe(200);
    expect(shipped).toHaveBeenCalledOnce();
    expect((await post(app, "/webhooks/qris")).status).toBe(404);
  });

  it("mounts sources at custom sub-paths and refuses one without a leading slash", async () => {
    const orders = { verify: [tokenVerifier({ secrets: ["t0ken"], in: "query", name: "token" })] };
    const webhooks = createWebhookApp({ orders, paths: { orders: "/shipping-status" } });
    webhooks.receivers.orders?.on("order.status", () => {});
    const app = new Hono().route("/webhooks", webhooks);
    expect((await post(app, "/webhooks/shipping-status?token=t0ken")).status).toBe(200);
    expect((await post(app, "/webhooks/orders?token=t0ken")).status).toBe(404);
    expect(() => createWebhookApp({ orders, paths: { orders: "shipping-status" } })).toThrow(
      /paths\.orders must be a path starting with "\/"/,
    );
  });

  it("builds the sources from c.env once per env object (Workers bindings)", async () => {
    const fromEnv = vi.fn((env: Bindings) => ({
      orders: createWebhookReceiver({
        source: "orders",
        verify: [tokenVerifier({ secrets: [env.ORDERS_TOKEN], in: "query", name: "token" })],
      }).on("order.status", () => {}),
    }));
    const app = new Hono<{ Bindings: Bindings }>().route(
      "/webhooks",
      createWebhookApp<{ Bindings: Bindings }>({ fromEnv }),
    );
    const env = { ORDERS_TOKEN: "from-binding" };
    const send = (token: string, bindings: Bindings) =>
      app.request(
        `/webhooks/orders?token=${token}`,
        { method: "POST", headers: { "content-type": "application/json" }, body: order },
        bindings,
      );
    expect((await send("from-binding", env)).status).toBe(200);
    expect((await send("from-binding", env)).status).toBe(200);
    expect(fromEnv).toHaveBeenCalledTimes(1);
    expect((await send("from-binding", { ORDERS_TOKEN: "rotated" })).status).toBe(401);
    expect(fromEnv).toHaveBeenCalledTimes(2);
    expect((await send("from-binding", env)).status).toBe(200);
    expect(fromEnv).toHaveBeenCalledTimes(2);
    expect((await app.request("/webhooks/qris", { method: "POST", body: "{}" }, env)).status).toBe(404);
  });

  it("enforces maxBodyBytes without a content-length (streamed body), with core's 413 body", async () => {
    const handler = vi.fn();
    const orders = createWebhookReceiver({
      source: "orders",
      maxBodyBytes: 1_000,
      verify: [tokenVerifier({ secrets: ["t0ken"], in: "query", name: "token" })],
    }).on("order.status", handler);
    const app = new Hono().route("/w", createWebhookApp({ orders }));
    const chunk = new TextEncoder().encode("x".repeat(600));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(chunk);
        controller.enqueue(chunk);
        controller.close();
      },
    });
    const response = await app.request("/w/orders?token=t0ken", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ success: false, message: "Body is larger than 1000 bytes" });
    expect(handler).not.toHaveBeenCalled();
  });

  it("passes the address getRemoteAddress reads (getConnInfo on @hono/node-server) to core", async () => {
    const allowOnly = (allow: string) =>
      createWebhookReceiver({ source: "orders", verify: [ipAllowlist({ allow: [allow] })] }).on(
        "order.status",
        () => {},
      );
    const app = new Hono()
      .route(
        "/in",
        createWebhookApp({ orders: allowOnly("127.0.0.1/8"), getRemoteAddress: (c) => getConnInfo(c).remote.address }),
      )
      .route(
        "/out",
        createWebhookApp({
          orders: allowOnly("203.0.113.0/24"),
          getRemoteAddress: (c) => getConnInfo(c).remote.address,
        }),
      );
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    try {
      const { port } = server.address() as AddressInfo;
      const send = (path: string) =>
        fetch(`http://127.0.0.1:${port}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: order,
        });
      expect((await send("/in/orders")).status).toBe(200);
      expect((await send("/out/orders")).status).toBe(401);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("refuses static sources next to fromEnv, which would otherwise be ignored", () => {
    const orders = { verify: [tokenVerifier({ secrets: ["t0ken"], in: "query" })] };
    expect(() => createWebhookApp({ orders, fromEnv: () => ({}) })).toThrow(WebhookConfigurationError);
    expect(() => createWebhookApp({ orders, fromEnv: () => ({}) })).toThrow(/not both \(also given: orders\)/);
  });

  it("builds fromEnv sources once on @hono/node-server, whose env is a new object per request", async () => {
    const shipped = vi.fn();
    const fromEnv = vi.fn(() => ({
      orders: createWebhookReceiver({
        source: "orders",
        verify: [tokenVerifier({ secrets: ["t0ken"], in: "query" })],
      }).on("order.status", shipped),
    }));
    const app = new Hono().route("/webhooks", createWebhookApp({ fromEnv }));
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    try {
      const { port } = server.address() as AddressInfo;
      const send = () =>
        fetch(`http://127.0.0.1:${port}/webhooks/orders?token=t0ken`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: order,
        });
      expect((await send()).status).toBe(200);
      // The same event again: one receiver, one memory store, so it is recognised and not processed twice.
      const duplicate = await send();
      expect(duplicate.status).toBe(200);
      expect(await duplicate.json()).toEqual({ success: true, message: "Duplicate of an event already processed" });
      expect(shipped).toHaveBeenCalledOnce();
      expect(fromEnv).toHaveBeenCalledOnce();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  describe("a body a middleware already read through c.req (no Content-Length, so no direct read)", () => {
    // Bytes a JSON round trip would change (spacing), signed as sent: only the exact bytes verify.
    const callbackKey = "callback-key-for-tests";
    const signedBody = '{ "status":"PAID",  "payment_id":"KPAY-7", "amount": 150000 }';
    const signature = createHmac("sha256", callbackKey).update(signedBody).digest("hex");
    const paymentApp = (readFirst: (c: Context) => Promise<unknown>, maxBodyBytes?: number) => {
      const paid = vi.fn();
      const payment = createWebhookReceiver({
        source: "payment",
        verify: [callbackKeyVerifier({ secrets: [callbackKey] })],
        logger: {},
        ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
      }).on("payment.callback", paid);
      const app = new Hono()
        .use(async (c, next) => {
          await readFirst(c);
          await next();
        })
        .route("/w", createWebhookApp({ payment }));
      const deliver = (body = signedBody) =>
        app.request("/w/payment", {
          method: "POST",
          headers: { "content-type": "application/json", "x-callback-api-key": signature },
          body,
        });
      return { deliver, paid };
    };

    it.each([
      ["c.req.json()", (c: Context) => c.req.json()],
      ["c.req.text()", (c: Context) => c.req.text()],
      ["c.req.arrayBuffer()", (c: Context) => c.req.arrayBuffer()],
    ])("gets the exact signed bytes back after %s", async (_name, readFirst) => {
      const { deliver, paid } = paymentApp(readFirst);
      const response = await deliver();
      expect(response.status).toBe(200);
      expect(paid).toHaveBeenCalledOnce();
    });

    it("still answers 413 past the receiver's limit", async () => {
      const { deliver, paid } = paymentApp((c) => c.req.text(), 100);
      const response = await deliver(signedBody.padEnd(500, " "));
      expect(response.status).toBe(413);
      expect(paid).not.toHaveBeenCalled();
    });

    it("answers 500 naming the fix when only a parsed value is left (an older Hono's json() cache)", async () => {
      const { deliver, paid } = paymentApp(async (c) => {
        c.req.bodyCache.json = Promise.resolve(JSON.parse(signedBody));
      });
      const response = await deliver();
      expect(response.status).toBe(500);
      expect((await response.json()).message).toMatch(/already-parsed object.*c\.req\.text\(\)/);
      expect(paid).not.toHaveBeenCalled();
    });
  });

  it("honours a ready receiver's maxBodyBytes above the 64 KiB default", async () => {
    const orders = createWebhookReceiver({
      source: "orders",
      maxBodyBytes: 200_000,
      verify: [tokenVerifier({ secrets: ["t0ken"], in: "query", name: "token" })],
    });
    const seen = vi.fn();
    orders.on("order.status", seen);
    const app = new Hono().route("/w", createWebhookApp({ orders }));
    const large = JSON.stringify({ order_no: "ORD-L", cnote: "JPL", status: "Dikirim", note: "x".repeat(100_000) });
    const response = await post(app, "/w/orders?token=t0ken", large);
    expect(response.status).toBe(200);
    expect(seen).toHaveBeenCalledOnce();
  });
});
