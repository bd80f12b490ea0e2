// Issue 29: after a handler time limit the delivery is answered 500; when the handler then ends and recording its
// completion keeps failing, onError is told what the delivery was answered (500), not 200.
import { describe, expect, it } from "vitest";
import { MemoryIdempotencyStore } from "../src/idempotency/memory.js";
import type { IdempotencyStore } from "../src/idempotency/types.js";
import { createWebhookReceiver, tokenVerifier, type WebhookErrorContext } from "../src/webhooks.js";
import { qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const TOKEN = "late-completion";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const delivery = (id: string) =>
  webhookRequest({ url: `/q?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });

/** A memory store whose completions always fail (the store went away after the claim). */
function failingCompletions(): IdempotencyStore {
  const memory = new MemoryIdempotencyStore();
  return {
    claim: (key, owner, lease) => memory.claim(key, owner, lease),
    complete: async () => {
      throw new Error("store down");
    },
    release: (key, owner, retention) => memory.release(key, owner, retention),
  };
}

function receiver(handlerMs: number, reported: Pick<WebhookErrorContext, "stage" | "status">[]) {
  return createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    idempotency: {
      store: failingCompletions(),
      leaseMs: 200,
      handlerTimeoutMs: 40,
      completionRetry: { minDelayMs: 5, maxDelayMs: 20 },
    },
    logger: { warn: () => {}, error: () => {} },
  })
    .on("payment.success", () => sleep(handlerMs))
    .onError((_error, { stage, status }) => {
      reported.push({ stage, status });
    });
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !condition(); i++) await sleep(10);
  expect(condition()).toBe(true);
}

describe("a completion that fails after the delivery was answered", () => {
  it("is reported with the status the delivery got: 500 after a handler time limit", async () => {
    const reported: Pick<WebhookErrorContext, "stage" | "status">[] = [];
    const answer = await receiver(80, reported).handle(delivery("late-1"));
    expect(answer.status).toBe(500);
    // The handler ends at 80 ms; recording is retried for the lease and half a lease, then given up.
    await until(() => reported.length === 2);
    expect(reported).toEqual([
      { stage: "handler", status: 500 },
      { stage: "idempotency", status: 500 },
    ]);
  });

  it("is reported with 200 when the handler finished in time (the delivery was answered 200)", async () => {
    const reported: Pick<WebhookErrorContext, "stage" | "status">[] = [];
    const answer = await receiver(1, reported).handle(delivery("late-2"));
    expect(answer.status).toBe(200);
    expect(reported).toEqual([{ stage: "idempotency", status: 200 }]);
  });
});
