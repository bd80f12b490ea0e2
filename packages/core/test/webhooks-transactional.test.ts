// Transactional handlers (issue 16): claim, effect and completion commit together or not at all.
import { describe, expect, it } from "vitest";
import { transactionalStage } from "../src/index.js";
import {
  type ClaimResult,
  createWebhookReceiver,
  type IdempotencyTransaction,
  MemoryIdempotencyStore,
  type TransactionalIdempotencyStore,
  tokenVerifier,
  type WebhookContext,
} from "../src/webhooks.js";
import { bodyOf, qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const TOKEN = "tx-token";
const quiet = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const delivery = (id = "h-1") =>
  webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });

/** Staged writes of one open transaction, as a handler sees `ctx.transaction`. */
interface FakeTransactionHandle {
  write(effect: string): void;
}

/**
 * A database in miniature: committed keys and effects, and open transactions that hold keys (a second claimant
 * gets `in_progress` at once, as a lock timeout would) and stage effects until commit.
 */
function fakeDatabase(
  faults: { begin?: boolean; commit?: boolean; beginDelayMs?: number } = {},
  options: { abandon?: boolean } = {},
) {
  const committedKeys = new Set<string>();
  const effects: string[] = [];
  const held = new Set<string>();
  const log: string[] = [];
  const store: TransactionalIdempotencyStore = {
    transactionalStage,
    async begin(): Promise<IdempotencyTransaction> {
      if (faults.begin) throw new Error("connection refused");
      if (faults.beginDelayMs !== undefined) await sleep(faults.beginDelayMs);
      const staged: string[] = [];
      let key: string | undefined;
      let abandoned = false;
      const release = () => {
        if (key !== undefined) held.delete(key);
      };
      log.push("begin");
      const abandon = () => {
        // As a closed connection: the staged writes are gone, later ones and the commit fail.
        abandoned = true;
        staged.length = 0;
        release();
        log.push("abandon");
      };
      return {
        ...(options.abandon ? { abandon } : {}),
        handle: {
          write: (effect: string) => {
            if (abandoned) throw new Error("Client was closed and is not queryable");
            staged.push(effect);
          },
        } satisfies FakeTransactionHandle,
        async claim(candidate): Promise<ClaimResult> {
          if (committedKeys.has(candidate)) return { state: "completed" };
          if (held.has(candidate)) return { state: "in_progress" };
          held.add(candidate);
          key = candidate;
          return { state: "claimed" };
        },
        async commit() {
          if (faults.commit || abandoned) throw new Error("commit failed");
          if (key !== undefined) committedKeys.add(key);
          effects.push(...staged);
          release();
          log.push("commit");
        },
        async rollback() {
          release();
          log.push("rollback");
        },
      };
    },
  };
  return { store, committedKeys, effects, log, faults };
}

function receiverOn(
  store: TransactionalIdempotencyStore,
  idempotency: { handlerTimeoutMs?: number; operationTimeoutMs?: number } = {},
) {
  return createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    idempotency: { store: store as never, transactional: true, ...idempotency },
    logger: quiet,
  });
}

describe("transactional handlers", () => {
  it("commits the effect and the record together, then answers 200; a redelivery is a duplicate", async () => {
    const db = fakeDatabase();
    const contexts: WebhookContext[] = [];
    const qris = receiverOn(db.store).on("payment.success", (event, ctx) => {
      contexts.push(ctx);
      (ctx.transaction as FakeTransactionHandle).write(`paid ${event.data.qris_history_id}`);
    });
    expect((await qris.handle(delivery())).status).toBe(200);
    expect(db.effects).toEqual(["paid h-1"]);
    expect(contexts[0]?.origin).toBe("webhook");
    const again = await qris.handle(delivery());
    expect(bodyOf(again).message).toMatch(/Duplicate of an event already processed/);
    expect(db.effects).toEqual(["paid h-1"]);
    expect(db.log).toEqual(["begin", "commit", "begin", "rollback"]);
  });

  it("rolls back the effect and the record when a handler fails, so the redelivery applies it once", async () => {
    const db = fakeDatabase();
    let calls = 0;
    const errors: string[] = [];
    const qris = receiverOn(db.store)
      .on("payment.success", (_event, ctx) => {
        calls++;
        (ctx.transaction as FakeTransactionHandle).write("paid");
        if (calls === 1) throw new Error("crash after the write");
      })
      .onError((_error, { stage, status }) => {
        errors.push(`${stage} ${status}`);
      });
    expect((await qris.handle(delivery())).status).toBe(500);
    expect(db.effects).toEqual([]);
    expect(db.committedKeys.size).toBe(0);
    expect((await qris.handle(delivery())).status).toBe(200);
    expect(db.effects).toEqual(["paid"]);
    expect(errors).toEqual(["handler 500"]);
  });

  it("answers 409 at once to a concurrent duplicate, without waiting for the first handler", async () => {
    const db = fakeDatabase();
    let release: () => void = () => {};
    const qris = receiverOn(db.store).on("payment.success", async (_event, ctx) => {
      (ctx.transaction as FakeTransactionHandle).write("paid");
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    const first = qris.handle(delivery());
    await new Promise((resolve) => setTimeout(resolve, 10));
    const second = await qris.handle(delivery());
    expect(second.status).toBe(409);
    release();
    expect((await first).status).toBe(200);
    expect(db.effects).toEqual(["paid"]);
  });

  it("answers 500 when the commit fails, applying nothing; the redelivery applies it once", async () => {
    const db = fakeDatabase({ commit: true });
    const qris = receiverOn(db.store).on("payment.success", (_event, ctx) => {
      (ctx.transaction as FakeTransactionHandle).write("paid");
    });
    const failed = await qris.handle(delivery());
    expect(failed.status).toBe(500);
    expect(bodyOf(failed).message).toMatch(/Could not commit/);
    expect(db.effects).toEqual([]);
    db.faults.commit = false;
    expect((await qris.handle(delivery())).status).toBe(200);
    expect(db.effects).toEqual(["paid"]);
  });

  it("answers 503 and runs nothing when no transaction can be opened", async () => {
    const db = fakeDatabase({ begin: true });
    let ran = false;
    const qris = receiverOn(db.store).on("payment.success", () => {
      ran = true;
    });
    expect((await qris.handle(delivery())).status).toBe(503);
    expect(ran).toBe(false);
  });

  it("refuses transactional: true on a store that cannot open transactions", () => {
    expect(() =>
      createWebhookReceiver({
        source: "qris",
        verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
        idempotency: { store: new MemoryIdempotencyStore(), transactional: true },
      }),
    ).toThrow(/idempotency\.store \(transactional: true\) must have begin\(\) and transactionalStage$/);
  });

  it("refuses a store that opens transactions but carries no transactionalStage, naming it", () => {
    const { store } = fakeDatabase();
    const { transactionalStage: _, ...withoutStage } = store as TransactionalIdempotencyStore & Record<string, unknown>;
    expect(() =>
      createWebhookReceiver({
        source: "qris",
        verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
        idempotency: { store: withoutStage as never, transactional: true },
      }),
    ).toThrow(/transactionalStage is missing: set it to transactionalStage of "@kirimbayar\/core"/);
  });

  it("leaves ctx.transaction undefined without transactional handlers", async () => {
    let seen: unknown = "unset";
    const qris = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      logger: quiet,
    }).on("payment.success", (_event, ctx) => {
      seen = ctx.transaction;
    });
    expect((await qris.handle(delivery())).status).toBe(200);
    expect(seen).toBeUndefined();
  });
});

describe("transactional handlers that run out of time (handlerTimeoutMs)", () => {
  it("abandons the transaction at the limit: 500, ctx.signal aborted, the late write never commits, the retry applies once", async () => {
    const db = fakeDatabase({}, { abandon: true });
    let calls = 0;
    const lateWrites: string[] = [];
    const signals: AbortSignal[] = [];
    const errors: string[] = [];
    const qris = receiverOn(db.store, { handlerTimeoutMs: 50 })
      .on("payment.success", async (_event, ctx) => {
        calls++;
        signals.push(ctx.signal);
        const tx = ctx.transaction as FakeTransactionHandle;
        tx.write("paid");
        if (calls > 1) return;
        await sleep(150);
        try {
          tx.write("paid again, late");
        } catch (error) {
          lateWrites.push(String(error));
        }
      })
      .onError((error, { stage, status }) => {
        errors.push(`${stage} ${status} ${(error as { code?: string }).code}`);
      });
    const started = performance.now();
    const first = await qris.handle(delivery());
    expect(first.status).toBe(500);
    expect(bodyOf(first).message).toMatch(/did not finish|retried/);
    expect(performance.now() - started).toBeLessThan(140);
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[0]?.reason).toMatchObject({ code: "webhook_handler_timeout" });
    expect(db.log).toEqual(["begin", "abandon"]);
    await sleep(200);
    expect(lateWrites).toEqual(["Error: Client was closed and is not queryable"]);
    expect(db.effects).toEqual([]);
    expect((await qris.handle(delivery())).status).toBe(200);
    expect(db.effects).toEqual(["paid"]);
    expect(signals[1]?.aborted).toBe(false);
    expect(errors).toEqual(["handler 500 webhook_handler_timeout"]);
  });

  it("on a store that cannot abandon, answers 500 at the limit and commits when the handler ends: the retry is a duplicate", async () => {
    const db = fakeDatabase();
    let calls = 0;
    const qris = receiverOn(db.store, { handlerTimeoutMs: 50 }).on("payment.success", async (_event, ctx) => {
      calls++;
      await sleep(120);
      (ctx.transaction as FakeTransactionHandle).write("paid");
    });
    expect((await qris.handle(delivery())).status).toBe(500);
    // Still running: its transaction holds the key.
    expect((await qris.handle(delivery())).status).toBe(409);
    await sleep(150);
    expect(db.effects).toEqual(["paid"]);
    const retry = await qris.handle(delivery());
    expect(bodyOf(retry).message).toMatch(/Duplicate of an event already processed/);
    expect(calls).toBe(1);
  });

  it("on a store that cannot abandon, rolls back a handler that fails after the limit: the retry applies it", async () => {
    const db = fakeDatabase();
    let calls = 0;
    const stages: string[] = [];
    const qris = receiverOn(db.store, { handlerTimeoutMs: 50 })
      .on("payment.success", async (_event, ctx) => {
        calls++;
        (ctx.transaction as FakeTransactionHandle).write(`paid by call ${calls}`);
        if (calls === 1) {
          await sleep(100);
          throw new Error("failed late");
        }
      })
      .onError((error) => {
        stages.push(String((error as Error).message));
      });
    expect((await qris.handle(delivery())).status).toBe(500);
    await sleep(120);
    expect(db.log).toEqual(["begin", "rollback"]);
    expect(db.effects).toEqual([]);
    expect((await qris.handle(delivery())).status).toBe(200);
    expect(db.effects).toEqual(["paid by call 2"]);
    expect(stages).toEqual([expect.stringMatching(/did not finish within 50 ms/), "failed late"]);
  });

  it("rolls back a transaction that a begin past its time limit opened late, so it holds nothing", async () => {
    const db = fakeDatabase({ beginDelayMs: 80 });
    let ran = false;
    const qris = receiverOn(db.store, { operationTimeoutMs: 30 }).on("payment.success", () => {
      ran = true;
    });
    expect((await qris.handle(delivery())).status).toBe(503);
    await sleep(100);
    expect(db.log).toEqual(["begin", "rollback"]);
    expect(ran).toBe(false);
  });
});
