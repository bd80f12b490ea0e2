// The delivery journal inside the receiver (issue 30): one entry per delivery, whatever its answer, written without
// ever changing that answer.
import { describe, expect, it } from "vitest";
import { applyEvent, inboxStage, processInboxMessage } from "../../src/index.js";
import { DEFERRED_BATCH_MS } from "../../src/journal/deferred.js";
import { type JournalEntry, MemoryDeliveryJournal } from "../../src/journal.js";
import {
  createWebhookReceiver,
  type IdempotencyStore,
  MemoryIdempotencyStore,
  tokenVerifier,
  type WebhookErrorContext,
  type WebhookInbox,
} from "../../src/webhooks.js";
import { orderStatus, paymentCallback, qrisSuccess, webhookRequest } from "../support/webhook-requests.js";

const TOKEN = "journal-secret-token";
const quiet = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function qrisDelivery(id: string, token = TOKEN) {
  return webhookRequest({ url: `/hook?token=${token}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });
}

/** The journal's entries once the writes made after the answers landed (they are never awaited by the receiver). */
async function entriesOf(journal: MemoryDeliveryJournal, count: number, reference?: string): Promise<JournalEntry[]> {
  const deadline = Date.now() + 2_000;
  for (;;) {
    const found = await journal.search(reference === undefined ? {} : { reference });
    if (found.length >= count || Date.now() > deadline) return found;
    await sleep(5);
  }
}

function qrisReceiver(journal: MemoryDeliveryJournal, store = new MemoryIdempotencyStore()) {
  return createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
    idempotency: { store },
    logger: quiet,
    journal,
  });
}

describe("a receiver with a journal", () => {
  it("journals a processed delivery with its references, key, attempt, status and handler time", async () => {
    const journal = new MemoryDeliveryJournal({ instance: "test-1" });
    const receiver = qrisReceiver(journal).on("payment.success", async () => sleep(5));
    expect((await receiver.handle(qrisDelivery("h-1"))).status).toBe(200);
    const [entry] = await entriesOf(journal, 1, "h-1");
    expect(entry).toMatchObject({
      source: "qris",
      origin: "webhook",
      event: "payment.success",
      state: "payment.success",
      references: { qris_history_id: "h-1" },
      idempotencyKey: "qris:payment.success:h-1",
      attempt: 1,
      httpStatus: 200,
      outcome: "processed",
      instance: "test-1",
    });
    expect(entry?.handlerMs).toBeGreaterThanOrEqual(4);
    expect(entry?.error).toBeUndefined();
    expect((await journal.search({ reference: "qris:payment.success:h-1" })).map((found) => found.id)).toEqual([
      entry?.id,
    ]);
  });

  it("journals a handler that ran out of time with its time-out, not its later failure, and gives that failure to no other delivery", async () => {
    const journal = new MemoryDeliveryJournal();
    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
      idempotency: { store: new MemoryIdempotencyStore(), handlerTimeoutMs: 20 },
      logger: quiet,
      journal,
    }).on("payment.success", async (event) => {
      if (event.data.qris_history_id !== "h-late") return;
      await sleep(60);
      throw new Error("late boom");
    });
    expect((await receiver.handle(qrisDelivery("h-late"))).status).toBe(500);
    await sleep(100); // the handler has failed by now, after its delivery was answered
    expect((await receiver.handle(qrisDelivery("h-next"))).status).toBe(200);
    const [late] = await entriesOf(journal, 1, "h-late");
    const [next] = await entriesOf(journal, 1, "h-next");
    expect(late).toMatchObject({ httpStatus: 500, outcome: "failed" });
    expect(late?.error).toMatch(/time/i);
    expect(late?.error).not.toContain("late boom");
    expect(next).toMatchObject({ httpStatus: 200, outcome: "processed" });
    expect(next?.error).toBeUndefined();
  });

  it("journals a duplicate (200), a duplicate still in progress (409) and a failed handler with its error", async () => {
    const journal = new MemoryDeliveryJournal();
    let release: () => void = () => {};
    const receiver = qrisReceiver(journal).on("payment.success", async (event) => {
      if (event.data.qris_history_id === "slow") await new Promise<void>((resolve) => (release = resolve));
      if (event.data.qris_history_id === "boom") throw new Error("db down: password=hunter2 at postgres");
    });
    expect((await receiver.handle(qrisDelivery("h-2"))).status).toBe(200);
    expect((await receiver.handle(qrisDelivery("h-2"))).status).toBe(200);
    const slow = receiver.handle(qrisDelivery("slow"));
    await sleep(5);
    expect((await receiver.handle(qrisDelivery("slow"))).status).toBe(409);
    release();
    expect((await slow).status).toBe(200);
    expect((await receiver.handle(qrisDelivery("boom"))).status).toBe(500);

    const h2 = await entriesOf(journal, 2, "h-2");
    expect(h2.map((entry) => entry.outcome)).toEqual(["duplicate", "processed"]);
    expect(h2[0]).toMatchObject({ httpStatus: 200, idempotencyKey: "qris:payment.success:h-2" });
    const slowEntries = await entriesOf(journal, 2, "slow");
    expect(slowEntries.map((entry) => [entry.outcome, entry.httpStatus]).sort()).toEqual([
      ["in_progress", 409],
      ["processed", 200],
    ]);
    const [failed] = await entriesOf(journal, 1, "boom");
    expect(failed).toMatchObject({ outcome: "failed", httpStatus: 500, attempt: 1 });
    expect(failed?.error).toContain("db down");
    expect(failed?.error).not.toContain("hunter2");
    expect(failed?.error).not.toMatch(/\n|at .*\.ts/);
  });

  it("journals refusals: 401 says only 'verification failed' and keeps the untrusted body's references out", async () => {
    const journal = new MemoryDeliveryJournal({ recordBodies: true });
    const receiver = qrisReceiver(journal).on("payment.success", () => {});
    expect((await receiver.handle(qrisDelivery("forged", "wrong-token"))).status).toBe(401);
    const invalid = webhookRequest({
      url: `/hook?token=${TOKEN}`,
      rawBody: JSON.stringify({ event: "payment.success", data: { qris_history_id: "bad-1", amount: "lots" } }),
    });
    expect((await receiver.handle(invalid)).status).toBe(400);
    expect((await receiver.handle(webhookRequest({ method: "GET", url: `/hook?token=${TOKEN}` }))).status).toBe(405);

    const entries = await entriesOf(journal, 3);
    const byStatus = new Map(entries.map((entry) => [entry.httpStatus, entry]));
    expect(byStatus.get(401)).toMatchObject({ outcome: "refused", error: "verification failed", references: {} });
    expect(byStatus.get(401)?.body).toBeUndefined();
    expect(JSON.stringify(byStatus.get(401))).not.toContain("forged");
    expect(byStatus.get(400)).toMatchObject({ outcome: "refused", references: { qris_history_id: "bad-1" } });
    expect(byStatus.get(400)?.error).toBeTruthy();
    expect(byStatus.get(405)).toMatchObject({ outcome: "refused", references: {} });
  });

  it("extracts payment and order references and states", async () => {
    const journal = new MemoryDeliveryJournal();
    const payment = createWebhookReceiver({ source: "payment", insecureNoVerification: true, logger: quiet, journal });
    payment.on("payment.callback", () => {});
    const orders = createWebhookReceiver({ source: "orders", insecureNoVerification: true, logger: quiet, journal });
    orders.onAny(() => {});
    const paid = paymentCallback({ payment_id: "pay-9", order_id: "ord-9", status: "PAID" });
    expect((await payment.handle(webhookRequest({ rawBody: JSON.stringify(paid) }))).status).toBe(200);
    const shipped = orderStatus({ order_no: "SO-7", cnote: "CN-7", status: "Dikirim" });
    expect((await orders.handle(webhookRequest({ method: "PUT", rawBody: JSON.stringify(shipped) }))).status).toBe(200);
    const [byOrderId] = await entriesOf(journal, 1, "ord-9");
    expect(byOrderId).toMatchObject({ references: { payment_id: "pay-9", order_id: "ord-9" }, state: "PAID" });
    const [byCnote] = await entriesOf(journal, 1, "CN-7");
    expect(byCnote).toMatchObject({ references: { order_no: "SO-7", cnote: "CN-7" }, state: "Dikirim" });
  });

  it("journals applyEvent as origin reconciliation and processInboxMessage as origin inbox with the inbox try", async () => {
    const journal = new MemoryDeliveryJournal();
    const receiver = qrisReceiver(journal).on("payment.success", () => {});
    expect((await applyEvent(receiver, qrisSuccess({ qris_history_id: "rec-1" }))).outcome).toBe("applied");
    const message = {
      key: "qris:payment.success:inb-1",
      source: "qris" as const,
      body: JSON.stringify(qrisSuccess({ qris_history_id: "inb-1" })),
      receivedAt: Date.now(),
    };
    expect((await processInboxMessage(receiver, message, { attempt: 3 })).outcome).toBe("applied");
    expect((await processInboxMessage(receiver, message, { replay: true })).outcome).toBe("already_applied");
    const [reconciled] = await entriesOf(journal, 1, "rec-1");
    expect(reconciled).toMatchObject({ origin: "reconciliation", outcome: "processed", httpStatus: 200 });
    const inbox = await entriesOf(journal, 2, "inb-1");
    expect(inbox.map((entry) => [entry.origin, entry.outcome, entry.attempt])).toEqual([
      ["replay", "duplicate", undefined],
      ["inbox", "processed", 3],
    ]);
  });

  it("never changes an answer when the journal throws, rejects or hangs, and reports stage 'journal'", async () => {
    for (const fault of ["throws", "rejects", "hangs"] as const) {
      const journal = new MemoryDeliveryJournal();
      const broken = Object.assign(Object.create(journal) as MemoryDeliveryJournal, {
        record: (): Promise<void> => {
          if (fault === "throws") throw new Error("journal table is read-only token=abc");
          if (fault === "rejects") return Promise.reject(new Error("journal table is read-only"));
          return new Promise<void>(() => {});
        },
      });
      const errors: WebhookErrorContext[] = [];
      const receiver = qrisReceiver(broken)
        .on("payment.success", () => {})
        .onError((_error, context) => {
          errors.push(context);
        });
      const started = Date.now();
      const first = await receiver.handle(qrisDelivery(`f-${fault}`));
      const again = await receiver.handle(qrisDelivery(`f-${fault}`));
      expect(Date.now() - started).toBeLessThan(1_000);
      expect([first.status, again.status]).toEqual([200, 200]);
      expect(again.body).toContain("Duplicate");
      await sleep(20);
      if (fault === "hangs") expect(errors).toEqual([]);
      else
        expect(errors.map((context) => [context.stage, context.status])).toEqual([
          ["journal", 200],
          ["journal", 200],
        ]);
    }
  });
});

describe("a receiver with a journal, other answers", () => {
  it("journals a queued event (inbox mode), an event no handler listens to, and a store outage with its error", async () => {
    const journal = new MemoryDeliveryJournal();
    const queued: string[] = [];
    const inbox: WebhookInbox = {
      inboxStage,
      enqueue: (message) => {
        queued.push(message.key);
        return "queued";
      },
    };
    const inboxReceiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
      logger: quiet,
      inbox,
      journal,
    });
    expect((await inboxReceiver.handle(qrisDelivery("q-1"))).status).toBe(200);
    expect((await entriesOf(journal, 1, "q-1"))[0]).toMatchObject({
      outcome: "queued",
      idempotencyKey: "qris:payment.success:q-1",
    });

    const unhandled = qrisReceiver(journal).on("payment.expired", () => {});
    expect((await unhandled.handle(qrisDelivery("nh-1"))).status).toBe(200);
    expect((await entriesOf(journal, 1, "nh-1"))[0]).toMatchObject({ outcome: "not_handled", httpStatus: 200 });

    const down: IdempotencyStore = {
      claim: () => Promise.reject(new Error("ECONNREFUSED redis://:s3cret@cache:6379")),
      complete: () => Promise.resolve(true),
      release: () => Promise.resolve(true),
    };
    const outage = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
      idempotency: { store: down },
      logger: quiet,
      journal,
    }).on("payment.success", () => {});
    expect((await outage.handle(qrisDelivery("down-1"))).status).toBe(503);
    const [failed] = await entriesOf(journal, 1, "down-1");
    expect(failed).toMatchObject({ outcome: "failed", httpStatus: 503 });
    expect(failed?.error).toContain("ECONNREFUSED");
    expect(failed?.error).not.toContain("s3cret");
  });

  it("journals refusals of the transport stage (415, 413) without a body's references", async () => {
    const journal = new MemoryDeliveryJournal();
    const receiver = qrisReceiver(journal).on("payment.success", () => {});
    const xml = qrisDelivery("ct-1");
    expect((await receiver.handle({ ...xml, headers: { "content-type": "text/xml" } })).status).toBe(415);
    const huge = webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: "x".repeat(70_000) });
    expect((await receiver.handle(huge)).status).toBe(413);
    const entries = await entriesOf(journal, 2);
    expect(entries.map((entry) => [entry.httpStatus, entry.outcome, entry.references]).sort()).toEqual([
      [413, "refused", {}],
      [415, "refused", {}],
    ]);
  });

  it("never lets a journal that throws on a refused delivery change its answer", async () => {
    const journal = new MemoryDeliveryJournal();
    journal.record = () => {
      throw new Error("journal is closed");
    };
    const errors: string[] = [];
    const receiver = qrisReceiver(journal)
      .on("payment.success", () => {})
      .onError((_error, context) => {
        errors.push(context.stage);
      });
    expect((await receiver.handle(qrisDelivery("x", "wrong"))).status).toBe(401);
    await sleep(DEFERRED_BATCH_MS + 30); // the refusal's batch is recorded, and fails, off the delivery path
    expect(errors).toEqual(["journal"]);
  });

  it("refuses a journal without its stage when the receiver is built", () => {
    const bare = { kind: "bare", record: async () => {} } as unknown as MemoryDeliveryJournal;
    expect(() => qrisReceiver(bare)).toThrow();
  });
});
