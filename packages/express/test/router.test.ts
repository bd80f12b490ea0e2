import type { IncomingMessage } from "node:http";
import { createWebhookReceiver, tokenVerifier } from "@kirimbayar/core/webhooks";
import { ipAllowlist } from "@kirimbayar/core/webhooks/ip-allowlist";
import express from "express";
import request from "supertest";
import { describe, expect, it, vi } from "vitest";
import { createWebhookRouter, readWebhookRequest } from "../src/index.js";

const order = JSON.stringify({ order_no: "ORD-9", cnote: "JP9", status: "Dikirim" });

describe("createWebhookRouter", () => {
  it("builds receivers from options and exposes them to register handlers", async () => {
    const router = createWebhookRouter({
      orders: { verify: [tokenVerifier({ secrets: ["t0ken"], in: "query", name: "token" })] },
    });
    const shipped = vi.fn();
    router.receivers.orders?.onOrderStatus("Dikirim", shipped);
    expect(router.receivers.qris).toBeUndefined();
    const app = express().use("/hooks", router);
    const response = await request(app).put("/hooks/orders?token=t0ken").type("json").send(order);
    expect(response.status).toBe(200);
    expect(shipped).toHaveBeenCalledWith(expect.objectContaining({ order_no: "ORD-9" }), expect.anything());
    expect((await request(app).post("/hooks/qris").type("json").send("{}")).status).toBe(404);
  });

  it("mounts sources at custom sub-paths", async () => {
    const orders = createWebhookReceiver({
      source: "orders",
      verify: [tokenVerifier({ secrets: ["t0ken"], in: "query", name: "token" })],
    }).on("order.status", () => {});
    const app = express().use("/hooks", createWebhookRouter({ orders, paths: { orders: "/shipping-status" } }));
    expect((await request(app).post("/hooks/shipping-status?token=t0ken").type("json").send(order)).status).toBe(200);
    expect((await request(app).post("/hooks/orders?token=t0ken").type("json").send(order)).status).toBe(404);
  });

  it("refuses a sub-path without a leading slash when the router is built, not at the first delivery", () => {
    const orders = { verify: [tokenVerifier({ secrets: ["t0ken"], in: "query", name: "token" })] };
    expect(() => createWebhookRouter({ orders, paths: { orders: "shipping-status" } })).toThrow(
      /paths\.orders must be a path starting with "\/"/,
    );
  });

  it("passes the socket's peer address to core (IP allowlist), or the one getRemoteAddress returns", async () => {
    const allowOnly = (allow: string) =>
      createWebhookReceiver({ source: "orders", verify: [ipAllowlist({ allow: [allow] })] }).on(
        "order.status",
        () => {},
      );
    const loopback = express().use("/w", createWebhookRouter({ orders: allowOnly("127.0.0.1/8") }));
    expect((await request(loopback).post("/w/orders").type("json").send(order)).status).toBe(200);
    const elsewhere = express().use("/w", createWebhookRouter({ orders: allowOnly("203.0.113.0/24") }));
    expect((await request(elsewhere).post("/w/orders").type("json").send(order)).status).toBe(401);
    const behindProxy = express().use(
      "/w",
      createWebhookRouter({ orders: allowOnly("203.0.113.0/24"), getRemoteAddress: () => "203.0.113.7" }),
    );
    expect((await request(behindProxy).post("/w/orders").type("json").send(order)).status).toBe(200);
  });

  it("refuses a declared oversize with 413 before reading, and a counted one after draining it", async () => {
    const orders = createWebhookReceiver({
      source: "orders",
      maxBodyBytes: 1_000,
      verify: [tokenVerifier({ secrets: ["t0ken"], in: "query", name: "token" })],
    }).on("order.status", () => {});
    let probed: unknown;
    const app = express()
      .post("/probe", async (req, res) => {
        const read = await readWebhookRequest(req as IncomingMessage, { limits: orders });
        probed = "refusal" in read ? read.refusal.status : "read";
        res.end();
      })
      .use("/w", createWebhookRouter({ orders: orders }));
    await request(app).post("/probe").type("json").send("x".repeat(5_000));
    expect(probed).toBe(413);
    const response = await request(app)
      .post("/w/orders?token=t0ken")
      .type("json")
      .send(`"${"x".repeat(5_000)}"`);
    expect(response.status).toBe(413);
    expect(response.headers.connection).toBe("close");
    expect(response.body).toEqual({ success: false, message: "Body is larger than 1000 bytes" });
    // Chunked (no Content-Length): counted while read, and the rest drained so the client reads the answer.
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as { port: number };
      const chunked = await fetch(`http://127.0.0.1:${port}/w/orders?token=t0ken`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new Blob([`"${"x".repeat(50_000)}"`]).stream(),
        duplex: "half",
      } as RequestInit);
      expect(chunked.status).toBe(413);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("honours a ready receiver's maxBodyBytes above the 64 KiB default", async () => {
    const orders = createWebhookReceiver({
      source: "orders",
      maxBodyBytes: 200_000,
      verify: [tokenVerifier({ secrets: ["t0ken"], in: "query", name: "token" })],
    });
    const seen = vi.fn();
    orders.on("order.status", seen);
    const app = express().use("/w", createWebhookRouter({ orders }));
    const large = JSON.stringify({ order_no: "ORD-L", cnote: "JPL", status: "Dikirim", note: "x".repeat(100_000) });
    const response = await request(app).post("/w/orders?token=t0ken").type("json").send(large);
    expect(response.status).toBe(200);
    expect(seen).toHaveBeenCalledOnce();
  });
});
