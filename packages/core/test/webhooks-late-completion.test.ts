// Issue 29: after a handler time limit the delivery is answered 500; when the handler then ends and recording its
// completion keeps failing, onError is told what the delivery was answered (500), not 200.
import { describe, expect, it } from "vitest";
import { MemoryIdempotencyStore } from "../src/idempotency/memory.js";
import { IdempotencyRecordNotDurableError, type IdempotencyStore } from "../src/idempotency/types.js";
import {
  createWebhookReceiver,
  tokenVerifier,
  type WebhookErrorContext,
  WebhookProcessingError,
} from "../src/webhooks.js";
import { bodyOf, qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

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

/** A memory store whose completions are written but never confirmed (a Redis store whose replicas did not answer). */
function unconfirmedCompletions(calls: { complete: number; release: number }): IdempotencyStore {
  const memory = new MemoryIdempotencyStore();
  return {
    claim: (key, owner, lease) => memory.claim(key, owner, lease),
    complete: async (key, owner, retention) => {
      calls.complete++;
      memory.complete(key, owner, retention);
      throw new IdempotencyRecordNotDurableError("Fewer than 1 Redis replica(s) acknowledged the completion");
    },
    release: (key, owner, retention) => {
      calls.release++;
      return memory.release(key, owner, retention);
    },
  };
}

// The not-durable answer is read from the error itself (the receiver does not import the class), so these pin it
// for any store that throws IdempotencyRecordNotDurableError, not only the Redis store with replicaAcknowledgement.
describe("a completion the store wrote but cannot vouch for (IdempotencyRecordNotDurableError)", () => {
  function notDurableReceiver(handlerMs: number) {
    const calls = { complete: 0, release: 0 };
    const logged: string[] = [];
    const reported: { error: unknown; stage: string; status: number }[] = [];
    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      idempotency: {
        store: unconfirmedCompletions(calls),
        leaseMs: 200,
        handlerTimeoutMs: 40,
        completionRetry: { minDelayMs: 5, maxDelayMs: 20 },
      },
      logger: { warn: () => {}, error: (message: string) => logged.push(message) },
    })
      .on("payment.success", () => sleep(handlerMs))
      .onError((error, { stage, status }) => {
        reported.push({ error, stage, status });
      });
    return { receiver, calls, logged, reported };
  }

  it("is not tried again: the claim is released and the delivery answered 503 instead of 200", async () => {
    const { receiver, calls, logged, reported } = notDurableReceiver(1);
    const answer = await receiver.handle(delivery("unconfirmed-1"));
    expect(answer.status).toBe(503);
    expect(bodyOf(answer)).toEqual({ success: false, message: "Idempotency store unavailable; retry later" });
    expect(calls).toEqual({ complete: 1, release: 1 });
    expect(logged).toEqual(["A processed webhook's completion is not durable; released its claim and answered 503"]);
    expect(reported).toHaveLength(1);
    const [{ error, stage, status }] = reported as [(typeof reported)[number]];
    expect({ stage, status }).toEqual({ stage: "idempotency", status: 503 });
    expect(error).toBeInstanceOf(WebhookProcessingError);
    expect((error as WebhookProcessingError).code).toBe("idempotency_store_unavailable");
    expect((error as WebhookProcessingError).cause).toBeInstanceOf(IdempotencyRecordNotDurableError);
  });

  it("after the handler time limit keeps the 500 it was answered, and still releases the claim", async () => {
    const { receiver, calls, logged, reported } = notDurableReceiver(80);
    const answer = await receiver.handle(delivery("unconfirmed-2"));
    expect(answer.status).toBe(500);
    await until(() => reported.length === 2);
    expect(reported.map(({ stage, status }) => ({ stage, status }))).toEqual([
      { stage: "handler", status: 500 },
      { stage: "idempotency", status: 500 },
    ]);
    expect(calls).toEqual({ complete: 1, release: 1 });
    expect(logged).toContain("A processed webhook's completion is not durable; released its claim and answered 503");
  });

  it("shows nothing of this in the error's own keys, JSON or spread", () => {
    const error = new IdempotencyRecordNotDurableError("not acknowledged", { cause: new Error("WAIT timed out") });
    expect(Reflect.ownKeys(error).filter((key) => typeof key === "symbol")).toHaveLength(1);
    expect(Object.getOwnPropertySymbols({ ...error })).toEqual([]);
    expect(Object.keys(error).sort()).toEqual(["code", "name"]);
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: "IdempotencyRecordNotDurableError",
      code: "idempotency_record_not_durable",
    });
  });
});
