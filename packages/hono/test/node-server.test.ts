// The app on @hono/node-server, over real HTTP: there it reads the body from Node's own request stream (no copy),
// so these tests cover what that path must keep: exact bytes for signatures, bodies in many TCP chunks, bodies a
// middleware already read, streamed (chunked) bodies and their limit, and a client that goes away mid-body.
import { createHmac } from "node:crypto";
import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createWebhookReceiver, hmacVerifier, type WebhookReceiver } from "@kirimbayar/core/webhooks";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createWebhookApp } from "../src/index.js";

const SECRET = "node-server-signing-secret";
const sign = (body: string | Buffer) => createHmac("sha256", SECRET).update(body).digest("hex");

function ordersReceiver(maxBodyBytes = 64 * 1024): { orders: WebhookReceiver<"orders">; seen: unknown[] } {
  const seen: unknown[] = [];
  const orders = createWebhookReceiver({
    source: "orders",
    maxBodyBytes,
    verify: [hmacVerifier({ secrets: [SECRET], header: "x-signature" })],
  }).on("order.status", (event) => {
    seen.push(event);
  });
  return { orders, seen };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function listen(app: Hono): Promise<number> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started));
  });
  close = () =>
    new Promise((resolve) => {
      (server as unknown as { closeAllConnections(): void }).closeAllConnections();
      server.close(() => resolve());
    });
  return (server.address() as AddressInfo).port;
}

interface RawRequest {
  headers: Record<string, string>;
  /** Written one after another, each its own write (and so, on loopback, usually its own TCP segment). */
  chunks: (string | Buffer)[];
  abortAfterChunks?: boolean;
}

// node:http rather than fetch: it can send a body in pieces, chunked without a length, or give up half-way.
function send(port: number, path: string, raw: RawRequest): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, method: "POST", headers: raw.headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (piece: string) => {
        body += piece;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    (async () => {
      for (const chunk of raw.chunks) {
        req.write(chunk);
        await new Promise((next) => setTimeout(next, 5));
      }
      if (raw.abortAfterChunks) {
        req.destroy();
        resolve({ status: 0, body: "" });
      } else req.end();
    })().catch(reject);
  });
}

const orderBody = (note: string) => JSON.stringify({ order_no: "ORD-N1", cnote: "JPN1", status: "Dikirim", note });

describe("createWebhookApp on @hono/node-server", () => {
  it("verifies a signature over a body that arrives in many chunks, byte for byte", async () => {
    const { orders, seen } = ordersReceiver();
    const port = await listen(new Hono().route("/webhooks", createWebhookApp({ orders })));
    // Multi-byte characters split across chunk boundaries must still hash as the sender's bytes.
    const body = Buffer.from(orderBody(`Diterima — ${"ÿ€😀".repeat(3000)}`));
    const pieces = [body.subarray(0, 7), body.subarray(7, 20_001), body.subarray(20_001)];
    const answer = await send(port, "/webhooks/orders", {
      headers: { "content-type": "application/json", "content-length": String(body.length), "x-signature": sign(body) },
      chunks: pieces,
    });
    expect(answer).toEqual({ status: 200, body: JSON.stringify({ success: true, message: "Webhook processed" }) });
    expect(seen).toEqual([JSON.parse(body.toString("utf8"))]);
  });

  it("refuses a body whose bytes differ from the signed ones", async () => {
    const { orders, seen } = ordersReceiver();
    const port = await listen(new Hono().route("/webhooks", createWebhookApp({ orders })));
    const body = orderBody("a");
    const answer = await send(port, "/webhooks/orders", {
      headers: { "content-type": "application/json", "content-length": String(body.length), "x-signature": sign(body) },
      chunks: [body.replace('"a"', '"b"')],
    });
    expect(answer.status).toBe(401);
    expect(seen).toEqual([]);
  });

  it("still gets the body when a middleware read it first through c.req", async () => {
    const { orders, seen } = ordersReceiver();
    const logged: unknown[] = [];
    const app = new Hono()
      .use("/webhooks/*", async (c, next) => {
        logged.push(await c.req.json());
        await next();
      })
      .route("/webhooks", createWebhookApp({ orders }));
    const port = await listen(app);
    const body = orderBody("read twice");
    const answer = await send(port, "/webhooks/orders", {
      headers: { "content-type": "application/json", "content-length": String(body.length), "x-signature": sign(body) },
      chunks: [body],
    });
    expect(answer.status).toBe(200);
    expect(logged).toEqual([JSON.parse(body)]);
    expect(seen).toEqual([JSON.parse(body)]);
  });

  it("reads a chunked body without a length, and answers 413 once one passes the limit", async () => {
    const { orders, seen } = ordersReceiver(2_000);
    const port = await listen(new Hono().route("/webhooks", createWebhookApp({ orders })));
    const small = orderBody("streamed");
    const ok = await send(port, "/webhooks/orders", {
      headers: { "content-type": "application/json", "transfer-encoding": "chunked", "x-signature": sign(small) },
      chunks: [small.slice(0, 10), small.slice(10)],
    });
    expect(ok.status).toBe(200);
    const large = orderBody("x".repeat(3_000));
    const refused = await send(port, "/webhooks/orders", {
      headers: { "content-type": "application/json", "transfer-encoding": "chunked", "x-signature": sign(large) },
      chunks: [large.slice(0, 1_500), large.slice(1_500)],
    });
    expect(refused).toEqual({
      status: 413,
      body: JSON.stringify({ success: false, message: "Body is larger than 2000 bytes" }),
    });
    expect(seen).toEqual([JSON.parse(small)]);
  });

  it("runs no handler for a client that leaves mid-body, and keeps serving", async () => {
    const { orders, seen } = ordersReceiver();
    const errors = vi.fn();
    const app = new Hono().route("/webhooks", createWebhookApp({ orders }));
    app.onError((error, c) => {
      errors(error);
      return c.text("gone", 500);
    });
    const port = await listen(app);
    const body = orderBody("half");
    await send(port, "/webhooks/orders", {
      headers: { "content-type": "application/json", "content-length": String(body.length), "x-signature": sign(body) },
      chunks: [body.slice(0, 20)],
      abortAfterChunks: true,
    });
    await new Promise((settle) => setTimeout(settle, 50));
    expect(seen).toEqual([]);
    const next = await send(port, "/webhooks/orders", {
      headers: { "content-type": "application/json", "content-length": String(body.length), "x-signature": sign(body) },
      chunks: [body],
    });
    expect(next.status).toBe(200);
    expect(seen).toEqual([JSON.parse(body)]);
  });
});
