// A pino logger passed as it is: every entry a receiver (or the reconciler) logs keeps its fields as structured JSON,
// and no secret (URL token, callback key) ever reaches a log line, whatever goes wrong.
import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { inboxStage } from "../src/index.js";
import { createReconciler } from "../src/reconcile/reconciler.js";
import { callbackKeyVerifier, createWebhookReceiver, type IdempotencyStore, tokenVerifier } from "../src/webhooks.js";
import { hmacHex, paymentCallback, qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const SENTINEL_TOKEN = "SENTINEL-TOKEN-4e1d0c7a9b";
const SENTINEL_KEY = "SENTINEL-CALLBACK-KEY-77f3aa";

function pinoCapture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: "debug" }, stream), lines, entries: () => lines.map((line) => JSON.parse(line)) };
}

const failingStore: IdempotencyStore = {
  claim: () => Promise.reject(new Error("ECONNREFUSED 127.0.0.1:6379")),
  complete: () => Promise.reject(new Error("down")),
  release: () => Promise.reject(new Error("down")),
};

describe("a pino logger, passed as it is", () => {
  it("gets fields first (source, err with message and stack) and never a secret", async () => {
    const { logger, lines, entries } = pinoCapture();
    const qris = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: SENTINEL_TOKEN, in: "query" })],
      logger,
    });
    qris.on("payment.success", () => {
      throw new Error("orders table locked");
    });
    const withToken = (token: string, body: unknown) =>
      webhookRequest({ url: `/webhooks/qris?token=${token}`, rawBody: JSON.stringify(body) });
    expect((await qris.handle(withToken(SENTINEL_TOKEN, qrisSuccess()))).status).toBe(500); // handler failed
    expect((await qris.handle(withToken(`${SENTINEL_TOKEN}x`, qrisSuccess()))).status).toBe(401);
    expect((await qris.handle(withToken(SENTINEL_TOKEN, { event: "payment.success" }))).status).toBe(400);

    const storeDown = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: SENTINEL_TOKEN, in: "query" })],
      idempotency: { store: failingStore },
      logger,
    }).on("payment.success", () => {});
    expect((await storeDown.handle(withToken(SENTINEL_TOKEN, qrisSuccess()))).status).toBe(503);

    const inboxDown = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: SENTINEL_TOKEN, in: "query" })],
      inbox: {
        inboxStage,
        enqueue: () => Promise.reject(new Error(`queue refused ${SENTINEL_TOKEN.length} bytes`)),
      },
      logger,
    });
    expect((await inboxDown.handle(withToken(SENTINEL_TOKEN, qrisSuccess()))).status).toBe(503);

    const payment = createWebhookReceiver({
      source: "payment",
      verify: [callbackKeyVerifier({ secrets: SENTINEL_KEY })],
      logger,
    });
    const body = JSON.stringify(paymentCallback());
    expect(
      (await payment.handle(webhookRequest({ rawBody: body, headers: { "x-callback-api-key": "f".repeat(64) } })))
        .status,
    ).toBe(401);
    expect(
      (
        await payment.handle(
          webhookRequest({ rawBody: body, headers: { "x-callback-api-key": hmacHex(SENTINEL_KEY, body) } }),
        )
      ).status,
    ).toBe(500); // no handler

    const reconciler = createReconciler({
      receivers: { qris },
      clients: { qris: { getQrisPaymentStatus: async () => ({ data: {} }) } },
      logger,
    });
    const running = reconciler.start({
      every: 1,
      jitter: 0,
      pending: () => {
        throw new Error("pending query failed");
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    await running.stop();

    expect(lines.length).toBeGreaterThanOrEqual(5);
    for (const line of lines) {
      expect(line).not.toContain(SENTINEL_TOKEN);
      expect(line).not.toContain(SENTINEL_KEY);
    }
    const logged = entries();
    const handlerFailure = logged.find((entry) => entry.err?.message === "ECONNREFUSED 127.0.0.1:6379");
    expect(handlerFailure).toMatchObject({
      level: 50,
      source: "qris",
      msg: expect.stringMatching(/Idempotency store unavailable/),
    });
    expect(handlerFailure.err.stack).toEqual(expect.any(String));
    expect(
      logged.some(
        (entry) =>
          entry.msg === "Inbox unavailable while queueing a webhook" && entry.err?.type === "InboxUnavailableError",
      ),
    ).toBe(true);
    expect(
      logged.some(
        (entry) => entry.msg === "Reconciliation run failed" && entry.err?.message === "pending query failed",
      ),
    ).toBe(true);
  });
});
