// The graceful shutdown (issue 37) with the memory store and a transactional store in miniature: deliveries in flight
// finish within the grace period, new ones are refused 503 (nothing runs), and what still runs after it has its
// claim released or its transaction ended without commit, so no key is left in progress.
import { describe, expect, it } from "vitest";
import { transactionalStage } from "../../src/index.js";
import { createGracefulShutdown, ShutdownInProgressError } from "../../src/shutdown.js";
import {
  createWebhookReceiver,
  type IdempotencyStore,
  type IdempotencyTransaction,
  MemoryIdempotencyStore,
  type TransactionalIdempotencyStore,
  tokenVerifier,
  WebhookConfigurationError,
} from "../../src/webhooks.js";
import { bodyOf, qrisSuccess, webhookRequest } from "../support/webhook-requests.js";

const TOKEN = "shutdown-token";
const quiet = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const delivery = (id: string) =>
  webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });
const keyOf = (id: string) => `qris:payment.success:${id}`;

function receiverOn(store: IdempotencyStore, handler: (id: string, signal: AbortSignal) => Promise<void>) {
  const errors: unknown[] = [];
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
    idempotency: { store },
    logger: quiet,
  });
  receiver.on("payment.success", (event, ctx) => handler(String(event.data.qris_history_id), ctx.signal));
  receiver.onError((error) => {
    errors.push(error);
  });
  return { receiver, errors };
}

describe("createGracefulShutdown with a non-transactional store", () => {
  it("lets deliveries in flight finish within the grace period and refuses new ones with 503", async () => {
    const shutdown = createGracefulShutdown({ graceMs: 2_000, logger: quiet });
    const memory = new MemoryIdempotencyStore();
    const store = shutdown.track(memory);
    const applied: string[] = [];
    const { receiver, errors } = receiverOn(store, async (id) => {
      await sleep(150);
      applied.push(id);
    });
    const inFlight = receiver.handle(delivery("h-1"));
    await sleep(20);
    expect(shutdown.held).toBe(1);
    expect(shutdown.ready).toBe(true);

    const running = shutdown.run();
    expect(shutdown.ready).toBe(false);
    await sleep(10);
    const refused = await receiver.handle(delivery("h-2"));
    expect(refused.status).toBe(503);
    expect((errors[0] as Error).cause).toBeInstanceOf(ShutdownInProgressError);

    expect((await inFlight).status).toBe(200);
    const report = await running;
    expect(applied).toEqual(["h-1"]);
    expect(report).toMatchObject({ heldAtStop: 1, released: 0, rolledBack: 0, refused: 1, failedSteps: [] });
    expect(report.drainMs).toBeLessThan(1_000);
    expect(shutdown.phase).toBe("closed");
    // h-1 is recorded as done, and h-2 was never claimed: another instance takes its retry.
    expect(await memory.claim(keyOf("h-1"), "other", 1_000)).toEqual({ state: "completed" });
    expect(await memory.claim(keyOf("h-2"), "other", 1_000)).toMatchObject({ state: "claimed" });
  });

  it("releases the claims of deliveries still running after the grace period, after aborting shutdown.signal", async () => {
    const shutdown = createGracefulShutdown({ graceMs: 200, logger: quiet });
    const memory = new MemoryIdempotencyStore();
    const store = shutdown.track(memory);
    const order: string[] = [];
    // One handler watches the shutdown's signal (it stops and fails), one ignores it and goes on for a while.
    const { receiver } = receiverOn(store, async (id) => {
      if (id === "watching") {
        await new Promise((_, reject) =>
          shutdown.signal.addEventListener("abort", () => {
            order.push("signal");
            reject(shutdown.signal.reason);
          }),
        );
      }
      await sleep(1_000);
      order.push(`finished ${id}`);
    });
    const watching = receiver.handle(delivery("watching"));
    const stubborn = receiver.handle(delivery("stubborn"));
    await sleep(20);
    const report = await shutdown.run();

    expect(report).toMatchObject({ heldAtStop: 2, heldAtGraceEnd: 2, released: 1, rolledBack: 0, releaseFailed: 0 });
    expect(order).toEqual(["signal"]);
    expect((await watching).status).toBe(500);
    // Neither key is in progress any more: a retry on another instance claims both at once, as a second attempt.
    expect(await memory.claim(keyOf("watching"), "other", 1_000)).toEqual({ state: "claimed", attempt: 2 });
    expect(await memory.claim(keyOf("stubborn"), "other", 1_000)).toEqual({ state: "claimed", attempt: 2 });
    expect(shutdown.held).toBe(0);
    // The stubborn handler still ends (its process would have exited by now); its completion is the store's.
    expect((await stubborn).status).toBe(200);
  });

  it("refuses and gives up a claim the store grants only after everything was released", async () => {
    const memory = new MemoryIdempotencyStore();
    let grant: (() => void) | undefined;
    const slow: IdempotencyStore = {
      claim: (key, owner, leaseMs) =>
        new Promise((resolve) => {
          grant = () => resolve(memory.claim(key, owner, leaseMs));
        }),
      complete: (key, owner, retentionMs) => memory.complete(key, owner, retentionMs),
      release: (key, owner, retentionMs) => memory.release(key, owner, retentionMs),
    };
    const shutdown = createGracefulShutdown({ graceMs: 50, logger: quiet });
    const ran: string[] = [];
    const { receiver } = receiverOn(shutdown.track(slow), async (id) => {
      ran.push(id);
    });
    const answer = receiver.handle(delivery("late"));
    await sleep(10);
    await shutdown.run();
    grant?.();
    expect((await answer).status).toBe(503);
    expect(ran).toEqual([]);
    await sleep(10);
    expect(await memory.claim(keyOf("late"), "other", 1_000)).toMatchObject({ state: "claimed" });
  });

  it("keeps the store's own methods, fields and synchronous answers", async () => {
    const shutdown = createGracefulShutdown({ logger: quiet });
    const memory = new MemoryIdempotencyStore();
    const store = shutdown.track(memory);
    expect(store).toBeInstanceOf(MemoryIdempotencyStore);
    // The memory store answers synchronously: so does the tracked one (the receiver's fast path).
    const claimed = store.claim("k", "owner-1", 1_000);
    expect(claimed).toEqual({ state: "claimed", attempt: 1 });
    expect(shutdown.held).toBe(1);
    expect(store.inspect?.("k")).toMatchObject({ state: "in_progress" });
    expect(store.complete("k", "owner-1", 1_000)).toBe(true);
    expect(shutdown.held).toBe(0);
  });
});

/** A transactional store in miniature: keys held by open transactions, effects staged until commit. */
function miniDatabase(options: { abandon: boolean }) {
  const committed = new Set<string>();
  const effects: string[] = [];
  const heldKeys = new Set<string>();
  const store: IdempotencyStore & TransactionalIdempotencyStore<{ write(effect: string): void }> = {
    transactionalStage,
    claim: () => ({ state: "claimed" }),
    complete: () => true,
    release: () => true,
    begin() {
      const staged: string[] = [];
      let key: string | undefined;
      let ended = false;
      const end = () => {
        ended = true;
        if (key !== undefined) heldKeys.delete(key);
      };
      const transaction: IdempotencyTransaction<{ write(effect: string): void }> = {
        handle: {
          write(effect) {
            if (ended) throw new Error("the connection is closed");
            staged.push(effect);
          },
        },
        claim(claimed) {
          if (committed.has(claimed)) return { state: "completed" };
          if (heldKeys.has(claimed)) return { state: "in_progress" };
          key = claimed;
          heldKeys.add(claimed);
          return { state: "claimed", attempt: 1 };
        },
        async commit() {
          if (ended) throw new Error("the transaction ended");
          effects.push(...staged);
          if (key !== undefined) committed.add(key);
          end();
        },
        async rollback() {
          end();
        },
      };
      if (options.abandon) transaction.abandon = end;
      return transaction;
    },
  };
  return { store, committed, effects, heldKeys };
}

describe.each([
  { abandon: true, what: "a store that abandons" },
  { abandon: false, what: "a store that cannot abandon" },
])("createGracefulShutdown with transactional handlers, on $what", ({ abandon }) => {
  it("ends the transactions still open after the grace period without their commit", async () => {
    const database = miniDatabase({ abandon });
    const shutdown = createGracefulShutdown({ graceMs: 150, logger: quiet });
    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
      idempotency: { store: shutdown.track(database.store), transactional: true },
      logger: quiet,
    });
    receiver.on("payment.success", async (event, ctx) => {
      const id = String(event.data.qris_history_id);
      if (id === "slow") await sleep(600);
      ctx.transaction.write(`paid ${id}`);
    });
    const quick = receiver.handle(delivery("quick"));
    const slow = receiver.handle(delivery("slow"));
    await sleep(20);
    const running = shutdown.run();
    expect((await receiver.handle(delivery("new"))).status).toBe(503);
    const report = await running;

    expect((await quick).status).toBe(200);
    expect(report).toMatchObject({ heldAtStop: 1, released: 0, rolledBack: 1 });
    const answer = await slow;
    // Never 200 without the effect: the late handler's write fails (abandoned) or its commit is refused.
    expect(answer.status).toBe(500);
    expect(bodyOf(answer).success).toBe(false);
    expect(database.effects).toEqual(["paid quick"]);
    expect(database.heldKeys.size).toBe(0);
    expect([...database.committed]).toEqual([keyOf("quick")]);
  });
});

describe("createGracefulShutdown steps", () => {
  it("runs stop, abort and close in order, names the failing ones, and runs only once", async () => {
    const shutdown = createGracefulShutdown({ graceMs: 100, stepTimeoutMs: 100, logger: quiet });
    const calls: string[] = [];
    const steps = {
      stop: async () => {
        calls.push("stop");
        await sleep(500);
      },
      abort: () => {
        calls.push("abort");
        throw new Error("boom");
      },
      close: [
        () => {
          calls.push("close 0");
          return new Promise(() => {});
        },
        async () => {
          calls.push("close 1");
        },
      ],
    };
    const first = shutdown.run(steps);
    const second = shutdown.run({});
    expect(second).toBe(first);
    const report = await first;
    expect(calls).toEqual(["stop", "abort", "close 0", "close 1"]);
    expect(report.failedSteps).toEqual(["abort", "stop", "close[0]"]);
  });

  it("keeps serving for unreadyDelayMs after readiness turned false", async () => {
    const shutdown = createGracefulShutdown({ unreadyDelayMs: 150, graceMs: 0, logger: quiet });
    const memory = new MemoryIdempotencyStore();
    const { receiver } = receiverOn(shutdown.track(memory), async () => {});
    const running = shutdown.run();
    await sleep(20);
    expect(shutdown.ready).toBe(false);
    expect(shutdown.phase).toBe("unready");
    expect((await receiver.handle(delivery("during-delay"))).status).toBe(200);
    await running;
    expect((await receiver.handle(delivery("after"))).status).toBe(503);
  });

  it("refuses bad options and steps with a WebhookConfigurationError", async () => {
    expect(() => createGracefulShutdown({ graceMs: -1 })).toThrow(WebhookConfigurationError);
    expect(() => createGracefulShutdown({ graceMs: Number.NaN })).toThrow(/graceMs must be a number/);
    expect(() => createGracefulShutdown({ unreadyDelayMs: Number.POSITIVE_INFINITY })).toThrow(/unreadyDelayMs/);
    expect(() => createGracefulShutdown({ stepTimeoutMs: "5" as unknown as number })).toThrow(/stepTimeoutMs/);
    const shutdown = createGracefulShutdown({ logger: quiet });
    expect(() => shutdown.track({} as IdempotencyStore)).toThrow(/needs an idempotency store/);
    await expect(shutdown.run({ stop: "close" as unknown as () => void })).rejects.toThrow(/stop must be a function/);
    await expect(shutdown.run({ close: [() => {}, 1 as unknown as () => void] })).rejects.toThrow(
      WebhookConfigurationError,
    );
    // A refused run started nothing.
    expect(shutdown.ready).toBe(true);
  });
});
