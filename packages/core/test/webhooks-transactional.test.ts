// Transactional handlers (issue 16): claim, effect and completion commit together or not at all.
import { describe, expect, it } from "vitest";
import {
  type ClaimResult,
  createWebhookReceiver,
  type IdempotencyTransaction,
  MemoryIdempotencyStore,
  type TransactionalIdempotencyStore,
  tokenVerifier,
  WebhookConfigurationError,
  type WebhookContext,
} from "../src/webhooks.js";
import { bodyOf, qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const TOKEN = "tx-token";
const quiet = { warn: () => {}, error: () => {} };
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
function fakeDatabase(faults: { begin?: boolean; commit?: boolean } = {}) {
  const committedKeys = new Set<string>();
  const effects: string[] = [];
  const held = new Set<string>();
  const log: string[] = [];
  const store: TransactionalIdempotencyStore = {
    async begin(): Promise<IdempotencyTransaction> {
      if (faults.begin) throw new Error("connection refused");
      const staged: string[] = [];
      let key: string | undefined;
      const release = () => {
        if (key !== undefined) held.delete(key);
      };
      log.push("begin");
      return {
        handle: { write: (effect: string) => staged.push(effect) } satisfies FakeTransactionHandle,
        async claim(candidate): Promise<ClaimResult> {
          if (committedKeys.has(candidate)) return { state: "completed" };
          if (held.has(candidate)) return { state: "in_progress" };
          held.add(candidate);
          key = candidate;
          return { state: "claimed" };
        },
        async commit() {
          if (faults.commit) throw new Error("commit failed");
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

function receiverOn(store: TransactionalIdempotencyStore) {
  return createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    idempotency: { store: store as never, transactional: true },
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
    ).toThrow(WebhookConfigurationError);
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
