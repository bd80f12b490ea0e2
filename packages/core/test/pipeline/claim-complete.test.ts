import { describe, expect, it, vi } from "vitest";
import { MemoryIdempotencyStore } from "../../src/idempotency/memory.js";
import { type IdempotencyStore, IdempotencyStoreUnavailableError } from "../../src/idempotency/types.js";
import { claimKey } from "../../src/webhooks/pipeline/claim.js";
import { completeClaim } from "../../src/webhooks/pipeline/complete.js";
import { type IdempotencySettings, monotonicNow } from "../../src/webhooks/pipeline/idempotency-settings.js";
import { createWebhookReceiver, tokenVerifier, WebhookProcessingError } from "../../src/webhooks.js";
import { bodyOf, qrisSuccess, webhookRequest } from "../support/webhook-requests.js";

function settings(store: IdempotencyStore, overrides: Partial<IdempotencySettings> = {}): IdempotencySettings {
  return {
    store,
    leaseMs: 1_000,
    retentionMs: 60_000,
    operationTimeoutMs: 100,
    completionRetryMinDelayMs: 5,
    completionRetryMaxDelayMs: 20,
    handlerTimeoutMs: 1_000,
    ...overrides,
  };
}

/** A memory store whose `complete` fails `failures` times (throwing, or hanging past the timeout) before working. */
function flakyCompletion(failures: number, how: "throw" | "hang") {
  const memory = new MemoryIdempotencyStore();
  const counts = { complete: 0 };
  const store: IdempotencyStore = {
    claim: (key, owner, lease) => memory.claim(key, owner, lease),
    complete(key, owner, retention) {
      counts.complete++;
      if (counts.complete <= failures) {
        if (how === "throw") throw new Error("store hiccup");
        return new Promise<boolean>(() => {});
      }
      return memory.complete(key, owner, retention);
    },
    release: (key, owner, retention) => memory.release(key, owner, retention),
  };
  return { store, counts, memory };
}

describe("claim stage", () => {
  it("returns the store's claim synchronously for a synchronous store", () => {
    const store = new MemoryIdempotencyStore();
    expect(claimKey(settings(store), "k", "o1")).toEqual({ state: "claimed", attempt: 1 });
    expect(claimKey(settings(store), "k", "o2")).toEqual({ state: "in_progress" });
  });

  it("rejects an answer that is not a claim result, so nothing runs unclaimed", async () => {
    const store = { claim: () => ({ state: "maybe" }), complete: () => true, release: () => true };
    expect(() => claimKey(settings(store as unknown as IdempotencyStore), "k", "o")).toThrow(/unknown result/);
    const asyncStore = { ...store, claim: async () => undefined };
    await expect(claimKey(settings(asyncStore as unknown as IdempotencyStore), "k", "o")).rejects.toThrow(
      /unknown result/,
    );
  });

  it("throws a synchronous store's throw as it is, without turning it into a rejected promise", () => {
    const down = new Error("store down");
    const store = {
      claim: () => {
        throw down;
      },
      complete: () => true,
      release: () => true,
    };
    let thrown: unknown;
    try {
      const answer = claimKey(settings(store as unknown as IdempotencyStore), "k", "o");
      // Reached only if the throw was wrapped: keep the rejection from going unhandled, then fail.
      if (answer instanceof Promise) answer.catch(() => {});
      expect.unreachable(`claimKey returned ${String(answer)} instead of throwing`);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBe(down);
  });

  it("rejects when the store does not answer within the operation timeout", async () => {
    const store = { claim: () => new Promise(() => {}), complete: () => true, release: () => true };
    await expect(
      claimKey(settings(store as unknown as IdempotencyStore, { operationTimeoutMs: 30 }), "k", "o"),
    ).rejects.toThrow(/did not answer in 30 ms/);
  });
});

describe("complete stage", () => {
  it("records synchronously when the store answers synchronously", () => {
    const store = new MemoryIdempotencyStore();
    store.claim("k", "o", 1_000);
    expect(completeClaim(settings(store), "k", "o", monotonicNow() + 1_000)).toBe(true);
    expect(store.claim("k", "o2", 1_000)).toEqual({ state: "completed" });
  });

  it("keeps trying a completion that throws until the store takes it", async () => {
    const { store, counts, memory } = flakyCompletion(3, "throw");
    memory.claim("k", "o", 1_000);
    await expect(completeClaim(settings(store), "k", "o", monotonicNow() + 1_000)).resolves.toBe(true);
    expect(counts.complete).toBe(4);
    expect(memory.claim("k", "o2", 1_000)).toEqual({ state: "completed" });
  });

  it("keeps trying a completion that hangs past the operation timeout", async () => {
    const { store, counts, memory } = flakyCompletion(2, "hang");
    memory.claim("k", "o", 1_000);
    await expect(
      completeClaim(settings(store, { operationTimeoutMs: 20 }), "k", "o", monotonicNow() + 1_000),
    ).resolves.toBe(true);
    expect(counts.complete).toBe(3);
  });

  it("gives up with the last error once the lease is over, not before", async () => {
    const { store, counts } = flakyCompletion(Number.POSITIVE_INFINITY, "throw");
    const started = monotonicNow();
    await expect(completeClaim(settings(store), "k", "o", started + 150)).rejects.toThrow("store hiccup");
    const elapsed = monotonicNow() - started;
    expect(elapsed).toBeGreaterThanOrEqual(100);
    expect(elapsed).toBeLessThan(1_000);
    expect(counts.complete).toBeGreaterThan(3);
  });

  it("still reaches a store that comes back in the lease's final stretch, even with long configured delays", async () => {
    const memory = new MemoryIdempotencyStore();
    memory.claim("k", "o", 10_000);
    const backAt = monotonicNow() + 940;
    let tries = 0;
    const store: IdempotencyStore = {
      claim: (k, o, l) => memory.claim(k, o, l),
      complete(k, o, r) {
        tries++;
        if (monotonicNow() < backAt) throw new Error("store down");
        return memory.complete(k, o, r);
      },
      release: (k, o, r) => memory.release(k, o, r),
    };
    const lease = settings(store, { leaseMs: 1_000, completionRetryMaxDelayMs: 5_000, operationTimeoutMs: 100 });
    await expect(completeClaim(lease, "k", "o", monotonicNow() + 1_000)).resolves.toBe(true);
    expect(tries).toBeGreaterThan(2);
  });

  it("answers false when another delivery took the key over after the lease", async () => {
    const { store, memory } = flakyCompletion(1, "throw");
    let now = 0;
    const clocked = new MemoryIdempotencyStore({ clock: () => now });
    const takenOver: IdempotencyStore = { ...store, complete: (k, o, r) => clocked.complete(k, o, r) };
    clocked.claim("k", "first", 10);
    now = 20;
    clocked.claim("k", "second", 10);
    expect(completeClaim(settings(takenOver), "k", "first", monotonicNow() + 1_000)).toBe(false);
    expect(memory.size).toBe(0);
  });
});

/**
 * A receiver over a store whose claim answers `claim()` synchronously (a throw or a value), with every call to the
 * store, the handler's runs, onError and the logged errors recorded.
 */
function receiverClaiming(claim: () => unknown) {
  const TOKEN = "claim-stage-token";
  const calls: string[] = [];
  const store = {
    claim: () => {
      calls.push("claim");
      return claim();
    },
    complete: () => {
      calls.push("complete");
      return true;
    },
    release: () => {
      calls.push("release");
      return true;
    },
  } as unknown as IdempotencyStore;
  const handler = vi.fn();
  const onError = vi.fn();
  const logged = vi.fn();
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    idempotency: { store },
    logger: { warn: () => {}, error: logged },
  })
    .onAny(handler)
    .onError(onError);
  const deliver = () =>
    receiver.handle(webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess()) }));
  return { deliver, calls, handler, onError, logged };
}

describe("claim stage at the receiver: a store that fails synchronously", () => {
  it("answers 503 to a claim that throws synchronously, runs no handler and reports the store stage", async () => {
    const down = new Error("store down");
    const { deliver, calls, handler, onError, logged } = receiverClaiming(() => {
      throw down;
    });
    const response = await deliver();
    expect(response.status).toBe(503);
    expect(bodyOf(response).message).toMatch(/Idempotency store unavailable/);
    expect(handler).not.toHaveBeenCalled();
    // Nothing was claimed, so there is nothing to complete or release.
    expect(calls).toEqual(["claim"]);
    expect(onError).toHaveBeenCalledTimes(1);
    const [error, context] = onError.mock.calls[0] ?? [];
    expect(error).toBeInstanceOf(WebhookProcessingError);
    expect(error).toMatchObject({ code: "idempotency_store_unavailable", status: 503 });
    expect((error as Error).cause).toBe(down);
    expect(context).toMatchObject({ source: "qris", stage: "idempotency", status: 503 });
    expect(context.event).toMatchObject({ event: "payment.success" });
    expect(logged).toHaveBeenCalledWith(
      expect.stringMatching(/store unavailable while claiming/),
      expect.objectContaining({ error: down }),
    );
    // The provider's retry meets the same store: answered the same way, still without running anything.
    expect((await deliver()).status).toBe(503);
    expect(handler).not.toHaveBeenCalled();
  });

  it("answers 503 to a synchronous claim result it does not know, running no handler", async () => {
    const { deliver, calls, handler, onError } = receiverClaiming(() => ({ state: "weird" }));
    const response = await deliver();
    expect(response.status).toBe(503);
    expect(handler).not.toHaveBeenCalled();
    expect(calls).toEqual(["claim"]);
    expect(onError).toHaveBeenCalledTimes(1);
    const [error, context] = onError.mock.calls[0] ?? [];
    expect(error).toMatchObject({ code: "idempotency_store_unavailable", status: 503 });
    expect((error as Error).cause).toBeInstanceOf(IdempotencyStoreUnavailableError);
    expect(String((error as Error).cause)).toMatch(/unknown result/);
    expect(context).toMatchObject({ stage: "idempotency", status: 503 });
  });
});
