// Handlers that hang (handlerTimeoutMs): the delivery is answered 500 at the limit instead of holding the request
// forever, ctx.signal tells the handler, and the claim follows the handler's real end, so nothing runs twice while
// it is still running and nothing is lost when it fails late.
import { describe, expect, it } from "vitest";
import { applyEvent } from "../src/index.js";
import {
  createWebhookReceiver,
  MemoryIdempotencyStore,
  tokenVerifier,
  WebhookConfigurationError,
  type WebhookContext,
  WebhookProcessingError,
} from "../src/webhooks.js";
import { lazyThenable } from "./support/thenables.js";
import { bodyOf, qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const TOKEN = "limit-token";
const quiet = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const payload = (id: string) => qrisSuccess({ qris_history_id: id });
const delivery = (id = "h-1") => webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(payload(id)) });

function receiver(idempotency: { handlerTimeoutMs?: number; leaseMs?: number } = {}) {
  return createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    idempotency: { store: new MemoryIdempotencyStore(), ...idempotency },
    logger: quiet,
  });
}

describe("handlers that run out of time", () => {
  it("answers 500 at the limit, aborts ctx.signal, and reports a typed timeout to onError", async () => {
    const contexts: WebhookContext[] = [];
    const reported: unknown[] = [];
    const qris = receiver({ handlerTimeoutMs: 40 })
      .on("payment.success", (_event, ctx) => {
        contexts.push(ctx);
        return new Promise<void>(() => {});
      })
      .onError((error, { stage, status }) => {
        reported.push({ error, stage, status });
      });
    const started = performance.now();
    const answer = await qris.handle(delivery());
    expect(answer.status).toBe(500);
    expect(bodyOf(answer).message).toMatch(/did not finish in time/);
    expect(performance.now() - started).toBeLessThan(500);
    const signal = contexts[0]?.signal;
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBeInstanceOf(WebhookProcessingError);
    expect(reported).toEqual([
      {
        error: expect.objectContaining({ code: "webhook_handler_timeout", status: 500 }),
        stage: "handler",
        status: 500,
      },
    ]);
  });

  it("keeps the claim while the handler still runs (409), and records its late success: the retry is a duplicate", async () => {
    let calls = 0;
    let finished = false;
    const qris = receiver({ handlerTimeoutMs: 40 }).on("payment.success", async () => {
      calls++;
      await sleep(120);
      finished = true;
    });
    expect((await qris.handle(delivery())).status).toBe(500);
    expect((await qris.handle(delivery())).status).toBe(409);
    await sleep(150);
    expect(finished).toBe(true);
    const retry = await qris.handle(delivery());
    expect(retry.status).toBe(200);
    expect(bodyOf(retry).message).toMatch(/Duplicate of an event already processed/);
    expect(calls).toBe(1);
  });

  it("releases the claim when the handler fails after the limit: the retry runs it again", async () => {
    let calls = 0;
    const errors: string[] = [];
    const qris = receiver({ handlerTimeoutMs: 40 })
      .on("payment.success", () => {
        calls++;
        // A lazy thenable (a query builder) that fails late: adopted, and its late rejection still counts.
        return calls === 1
          ? lazyThenable(async () => {
              await sleep(80);
              throw new Error("UPDATE orders failed late");
            }).thenable
          : undefined;
      })
      .onError((error) => {
        errors.push((error as Error).message);
      });
    expect((await qris.handle(delivery())).status).toBe(500);
    await sleep(120);
    expect((await qris.handle(delivery())).status).toBe(200);
    expect(calls).toBe(2);
    expect(errors).toEqual([expect.stringMatching(/within 40 ms/), "UPDATE orders failed late"]);
  });

  it("defaults the limit to the lease, past which the claim no longer protects the handler", async () => {
    const qris = receiver({ leaseMs: 60 }).on("payment.success", () => new Promise<void>(() => {}));
    const started = performance.now();
    expect((await qris.handle(delivery())).status).toBe(500);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  });

  it("leaves handlers that end in time alone: 200, ctx.signal never aborted", async () => {
    const signals: AbortSignal[] = [];
    const qris = receiver({ handlerTimeoutMs: 200 }).on("payment.success", async (_event, ctx) => {
      signals.push(ctx.signal);
      await sleep(10);
    });
    expect((await qris.handle(delivery("a"))).status).toBe(200);
    expect(signals[0]?.aborted).toBe(false);
  });

  it("gives applyEvent (the reconciler, inbox workers) the same limit: failed, with the timeout error", async () => {
    let calls = 0;
    const qris = receiver({ handlerTimeoutMs: 40 }).on("payment.success", async () => {
      calls++;
      if (calls === 1) await new Promise<void>(() => {});
    });
    const applied = await applyEvent(qris, payload("r-1"));
    expect(applied).toMatchObject({
      outcome: "failed",
      error: expect.objectContaining({ code: "webhook_handler_timeout" }),
    });
    // The hung first run still holds the claim until its lease ends.
    expect((await applyEvent(qris, payload("r-1"))).outcome).toBe("in_progress");
  });

  it("refuses a limit that is not a positive number", () => {
    for (const handlerTimeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => receiver({ handlerTimeoutMs })).toThrow(WebhookConfigurationError);
    }
  });
});
