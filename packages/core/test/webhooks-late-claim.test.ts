// Issue 29: a claim the store applies only after the receiver's time limit (the delivery was answered 503) is
// released as soon as the store answers, so the provider's next retry is processed instead of answered 409 for a
// whole lease. Any store: the memory store is the state, a gate holds its answers back as a slow store would.
import { describe, expect, it } from "vitest";
import { MemoryIdempotencyStore } from "../src/idempotency/memory.js";
import type { ClaimResult, IdempotencyStore } from "../src/idempotency/types.js";
import { createWebhookReceiver, tokenVerifier } from "../src/webhooks.js";
import { qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const TOKEN = "late-claim-unit";

/** A store over `memory` whose claims are applied only when `open()` is called, as a frozen server would. */
function gatedStore(memory = new MemoryIdempotencyStore()) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const releases: string[] = [];
  let applied = 0;
  const store: IdempotencyStore = {
    claim: async (key, owner, lease): Promise<ClaimResult> => {
      await gate;
      applied++;
      return memory.claim(key, owner, lease);
    },
    complete: (key, owner, retention) => memory.complete(key, owner, retention),
    release: (key, owner, retention) => {
      releases.push(owner);
      return memory.release(key, owner, retention);
    },
  };
  return { store, memory, releases, open, applied: () => applied };
}

function receiverOn(store: IdempotencyStore, runs: string[]) {
  return createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    idempotency: { store, leaseMs: 60_000, operationTimeoutMs: 50 },
    logger: { warn: () => {}, error: () => {} },
  }).on("payment.success", (event) => {
    runs.push(String(event.data.qris_history_id));
  });
}

const delivery = (id: string) =>
  webhookRequest({ url: `/q?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

describe("a claim answered after the receiver's time limit", () => {
  it("is released when the store answers, and the retry is processed once", async () => {
    const gated = gatedStore();
    const runs: string[] = [];
    const receiver = receiverOn(gated.store, runs);
    expect((await receiver.handle(delivery("e1"))).status).toBe(503);
    expect(runs).toEqual([]);
    gated.open();
    await until(() => gated.releases.length === 1);
    // The key is free again: the provider's retry (on the now responsive store) claims it and runs the handler.
    const retry = await receiverOn(gated.memory, runs).handle(delivery("e1"));
    expect(retry.status).toBe(200);
    expect(runs).toEqual(["e1"]);
  });

  it("without the release, the retry would be answered 409 for the lease (the store still holds the claim)", async () => {
    // The same late claim applied straight to a store nobody releases it in: what the fix prevents.
    const memory = new MemoryIdempotencyStore();
    memory.claim("qris:payment.success:e2", "timed-out-delivery", 60_000);
    const runs: string[] = [];
    expect((await receiverOn(memory, runs).handle(delivery("e2"))).status).toBe(409);
    expect(runs).toEqual([]);
  });

  it("releases only a claim it took: a late 'in progress' or 'completed' answer leaves the key alone", async () => {
    const memory = new MemoryIdempotencyStore();
    const runs: string[] = [];
    // Another delivery holds e3; another completed e4.
    memory.claim("qris:payment.success:e3", "other", 60_000);
    expect((await receiverOn(memory, runs).handle(delivery("e4"))).status).toBe(200);
    const gated = gatedStore(memory);
    const receiver = receiverOn(gated.store, runs);
    expect((await receiver.handle(delivery("e3"))).status).toBe(503);
    expect((await receiver.handle(delivery("e4"))).status).toBe(503);
    gated.open();
    await until(() => gated.applied() === 2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(gated.releases).toEqual([]);
    expect(memory.claim("qris:payment.success:e3", "probe", 60_000)).toEqual({ state: "in_progress" });
    expect(runs).toEqual(["e4"]);
  });
});
