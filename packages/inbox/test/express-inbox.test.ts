// An Express shop in inbox mode over real HTTP: the router answers once the event is queued on pg-boss, and a worker
// started on the router's own receivers applies it.
import type { AddressInfo } from "node:net";
import { tokenVerifier } from "@kirimbayar/core/webhooks";
import { createWebhookRouter } from "@kirimbayar/express";
import express from "express";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startInboxWorker } from "../src/worker.js";
import { type EngineUnderTest, pgBossEngine } from "./engines.js";

const TOKEN = "express-inbox-token";
let engine: EngineUnderTest;
beforeAll(async () => {
  engine = await pgBossEngine();
}, 60_000);
afterAll(async () => {
  await engine?.close();
}, 30_000);

it("queues deliveries posted to the Express router and applies them once in a worker", async () => {
  const inbox = await engine.inbox();
  const router = createWebhookRouter({
    qris: {
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      inbox,
      logger: { warn: () => {}, error: () => {} },
    },
  });
  const paid: string[] = [];
  router.receivers.qris?.on("payment.success", (event) => {
    paid.push(String(event.data.qris_history_id));
  });
  const app = express().use("/webhooks", router);
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/qris`;
  const post = (token: string, id: string) =>
    fetch(`${url}?token=${token}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        event: "payment.success",
        timestamp: "2026-03-01T03:00:00Z",
        data: { qris_history_id: id, amount: 1 },
      }),
    });
  const worker = await startInboxWorker({
    inbox,
    receivers: router.receivers,
    logger: { warn: () => {}, error: () => {} },
  });
  try {
    const first = await post(TOKEN, "x-1");
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ success: true, message: "Webhook queued" });
    expect((await post(TOKEN, "x-1")).status).toBe(200);
    expect((await post("forged", "x-2")).status).toBe(401);
    for (let i = 0; i < 100 && paid.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 300));
    expect(paid).toEqual(["x-1"]);
  } finally {
    await worker.stop();
    server.closeAllConnections();
    server.close();
  }
});
