import { createHmac } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { callbackKeyVerifier, createWebhookReceiver } from "@kirimbayar/core/webhooks";
import express from "express";
import request from "supertest";
import { describe, expect, it, vi } from "vitest";
import { createWebhookRouter } from "../src/index.js";

// A callback whose bytes a JSON round trip would change (spacing, key order), so only the exact raw bytes verify.
const callbackKey = "callback-key-for-tests";
const body = '{ "status":"PAID",  "payment_id":"KPAY-77", "amount": 150000 }';
const signature = createHmac("sha256", callbackKey).update(body).digest("hex");

function paymentReceiver(onCallback = vi.fn()) {
  const receiver = createWebhookReceiver({
    source: "payment",
    verify: [callbackKeyVerifier({ secrets: [callbackKey] })],
    logger: {},
  });
  receiver.on("payment.callback", onCallback);
  return { receiver, onCallback };
}

function deliver(app: express.Express, contentType = "application/json") {
  return request(app)
    .post("/webhooks/payment")
    .set("content-type", contentType)
    .set("x-callback-api-key", signature)
    .send(body);
}

describe("a host app that already parses bodies", () => {
  it("works mounted before express.json(): the router reads the stream itself", async () => {
    const { receiver, onCallback } = paymentReceiver();
    const app = express()
      .use("/webhooks", createWebhookRouter({ payment: receiver }))
      .use(express.json());
    const response = await deliver(app);
    expect(response.status).toBe(200);
    expect(onCallback).toHaveBeenCalledOnce();
    expect(onCallback.mock.calls[0]?.[0]).toMatchObject({ payment_id: "KPAY-77", status: "PAID" });
  });

  it("uses the bytes express.json()'s verify hook kept on req.rawBody", async () => {
    const { receiver, onCallback } = paymentReceiver();
    const app = express()
      .use(
        express.json({
          verify: (req: IncomingMessage & { rawBody?: Buffer }, _res, buffer) => {
            req.rawBody = buffer;
          },
        }),
      )
      .use("/webhooks", createWebhookRouter({ payment: receiver }));
    const response = await deliver(app);
    expect(response.status).toBe(200);
    expect(onCallback).toHaveBeenCalledOnce();
  });

  it("answers 500 naming the fix when express.json() ran first without a verify hook", async () => {
    const { receiver, onCallback } = paymentReceiver();
    const app = express()
      .use(express.json())
      .use("/webhooks", createWebhookRouter({ payment: receiver }));
    const response = await deliver(app);
    expect(response.status).toBe(500);
    expect(response.body.success).toBe(false);
    expect(response.body.message).toMatch(/already-parsed object/);
    expect(response.body.message).toMatch(/before express\.json\(\)/);
    expect(JSON.stringify(response.body)).not.toContain(callbackKey);
    expect(onCallback).not.toHaveBeenCalled();
  });

  it("still reads the stream when express.json() skipped the body (another content type), so core answers 415", async () => {
    const { receiver, onCallback } = paymentReceiver();
    const app = express()
      .use(express.json())
      .use("/webhooks", createWebhookRouter({ payment: receiver }));
    const response = await deliver(app, "text/plain");
    expect(response.status).toBe(415);
    expect(onCallback).not.toHaveBeenCalled();
  });

  it("lets express.json() mounted first refuse a malformed or oversized body itself: never 2xx, no handler", async () => {
    const { receiver, onCallback } = paymentReceiver();
    const app = express()
      .use(express.json({ limit: "1kb" }))
      .use("/webhooks", createWebhookRouter({ payment: receiver }));
    const send = (text: string) =>
      request(app)
        .post("/webhooks/payment")
        .set("content-type", "application/json")
        .set("x-callback-api-key", signature)
        .send(text);
    expect((await send("{not json")).status).toBe(400);
    expect((await send(JSON.stringify({ note: "x".repeat(2_000) }))).status).toBe(413);
    expect(onCallback).not.toHaveBeenCalled();
  });

  it("uses the Buffer express.raw() left on req.body", async () => {
    const { receiver, onCallback } = paymentReceiver();
    const app = express()
      .use(express.raw({ type: "*/*" }))
      .use("/webhooks", createWebhookRouter({ payment: receiver }));
    expect((await deliver(app)).status).toBe(200);
    expect(onCallback).toHaveBeenCalledOnce();
  });

  it("uses the text express.text() left on req.body", async () => {
    const { receiver, onCallback } = paymentReceiver();
    const app = express()
      .use(express.text({ type: "*/*" }))
      .use("/webhooks", createWebhookRouter({ payment: receiver }));
    expect((await deliver(app)).status).toBe(200);
    expect(onCallback).toHaveBeenCalledOnce();
  });
});
