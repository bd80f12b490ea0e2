// Entries built off the delivery path (journal/deferred.ts): a receiver answers first and hands its deliveries to the
// journal's queue, which builds their entries and records them in one `record()` call per batch. Nothing answered is
// left behind: a search, flush or close records what waits first, and a failed batch is reported per delivery.
import { describe, expect, it } from "vitest";
import { DEFERRED_BATCH_MS, MAX_DEFERRED_BATCH } from "../../src/journal/deferred.js";
import { type JournalEntry, MemoryDeliveryJournal } from "../../src/journal.js";
import { createWebhookReceiver, tokenVerifier, type WebhookErrorContext } from "../../src/webhooks.js";
import { qrisSuccess, webhookRequest } from "../support/webhook-requests.js";

const TOKEN = "deferred-journal-token";
const quiet = { warn: () => {}, error: () => {} };

const delivery = (id: string, token = TOKEN) =>
  webhookRequest({ url: `/hook?token=${token}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });

function receiverFor(journal: MemoryDeliveryJournal) {
  return createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
    logger: quiet,
    journal,
  }).on("payment.success", async () => {});
}

/** A memory journal that tells each `record()` call's size. */
function countingJournal() {
  const journal = new MemoryDeliveryJournal();
  const calls: number[] = [];
  const record = journal.record.bind(journal);
  journal.record = (entries: readonly JournalEntry[]) => {
    calls.push(entries.length);
    return record(entries);
  };
  return { journal, calls };
}

describe("deferred journal entries", () => {
  it("records a burst of answered deliveries with one record() call, after the answers", async () => {
    const { journal, calls } = countingJournal();
    const receiver = receiverFor(journal);
    const ids = Array.from({ length: 30 }, (_, i) => `burst-${i}`);
    const answers = await Promise.all(ids.map((id) => receiver.handle(delivery(id))));
    expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 200));
    // Answered, not yet recorded: the entries wait for others for DEFERRED_BATCH_MS.
    expect(calls).toEqual([]);
    await journal.flush();
    expect(calls).toEqual([30]);
    for (const id of ids) {
      const [entry] = await journal.search({ reference: id });
      expect(entry).toMatchObject({
        outcome: "processed",
        httpStatus: 200,
        idempotencyKey: `qris:payment.success:${id}`,
      });
    }
  });

  it("records what waits once its batch's time has passed, and before a search", async () => {
    const { journal, calls } = countingJournal();
    const receiver = receiverFor(journal);
    await receiver.handle(delivery("soon"));
    await receiver.handle(delivery("soon-after"));
    expect(calls).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, DEFERRED_BATCH_MS + 30));
    expect(calls).toEqual([2]);
    await receiver.handle(delivery("searched"));
    await receiver.handle(delivery("searched", "wrong-token"));
    expect((await journal.search({ reference: "searched" })).map((entry) => entry.outcome)).toEqual(["processed"]);
    expect((await journal.search({ outcomes: ["refused"] })).map((entry) => entry.error)).toEqual([
      "verification failed",
    ]);
    expect(calls).toEqual([2, 2]);
  });

  it("records a batch at once when it is full, without waiting for the timer", async () => {
    const { journal, calls } = countingJournal();
    const receiver = receiverFor(journal);
    await Promise.all(Array.from({ length: 300 }, (_, i) => receiver.handle(delivery(`full-${i}`))));
    expect(calls.length).toBeGreaterThanOrEqual(4);
    expect(calls.slice(0, 4)).toEqual([MAX_DEFERRED_BATCH, MAX_DEFERRED_BATCH, MAX_DEFERRED_BATCH, MAX_DEFERRED_BATCH]);
    await journal.flush();
    expect(calls.reduce((sum, size) => sum + size, 0)).toBe(300);
  });

  it("reports a failed batch once per delivery, with each delivery's own status", async () => {
    const journal = new MemoryDeliveryJournal();
    journal.record = () => Promise.reject(new Error("journal table is read-only"));
    const errors: WebhookErrorContext[] = [];
    const receiver = receiverFor(journal).onError((_error, context) => {
      errors.push(context);
    });
    const statuses = [
      (await receiver.handle(delivery("f-1"))).status,
      (await receiver.handle(delivery("f-1"))).status,
      (await receiver.handle(delivery("f-2", "wrong-token"))).status,
    ];
    expect(statuses).toEqual([200, 200, 401]);
    await journal.flush();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(errors.map((context) => [context.stage, context.status]).sort()).toEqual([
      ["journal", 200],
      ["journal", 200],
      ["journal", 401],
    ]);
  });
});

describe("MemoryDeliveryJournal's ring and its index built at search time", () => {
  it("finds exactly the kept entries by reference and key while the ring wraps and the index is rebuilt", async () => {
    const max = 4;
    const journal = new MemoryDeliveryJournal({ maxEntries: max });
    const recorded: JournalEntry[] = [];
    const references = ["ring-a", "ring-b", "ring-c"];
    // Bounded: 60 entries, a search of every reference and of a key after every third.
    for (let n = 0; n < 60; n++) {
      const entry: JournalEntry = {
        at: 1_000 + n,
        source: "qris",
        origin: "webhook",
        references: { qris_history_id: references[n % 3] as string },
        idempotencyKey: `ring-key-${n % 5}`,
        httpStatus: 200,
        outcome: "processed",
        instance: "test",
      };
      await journal.record([entry]);
      recorded.push(entry);
      if (n % 3 !== 2) continue;
      const kept = recorded.slice(-max);
      for (const term of [...references, `ring-key-${n % 5}`, `ring-key-${(n + 1) % 5}`]) {
        const expected = kept
          .filter((e) => e.references.qris_history_id === term || e.idempotencyKey === term)
          .map((e) => e.at)
          .reverse();
        expect((await journal.search({ reference: term })).map((e) => e.at)).toEqual(expected);
      }
    }
    expect((await journal.search({ limit: 1_000 })).map((e) => e.at)).toEqual([1_059, 1_058, 1_057, 1_056]);
  });

  it("gives each entry its own id, and forgets expired entries by reference too", async () => {
    let now = 10_000;
    const journal = new MemoryDeliveryJournal({ retentionMs: 1_000, clock: () => now });
    const entry = (at: number): JournalEntry => ({
      at,
      source: "orders",
      origin: "webhook",
      references: { order_no: "SO-ring", cnote: "SO-ring" },
      httpStatus: 200,
      outcome: "processed",
      instance: "test",
    });
    await journal.record([entry(9_500), entry(9_900)]);
    const found = await journal.search({ reference: "SO-ring" });
    // One entry per delivery even when two references carry the same text.
    expect(found.map((e) => e.at)).toEqual([9_900, 9_500]);
    expect(new Set(found.map((e) => e.id)).size).toBe(2);
    now = 10_700;
    expect(await journal.deleteExpired()).toBe(1);
    expect((await journal.search({ reference: "SO-ring" })).map((e) => e.at)).toEqual([9_900]);
    expect((await journal.summarize(0))[2]?.deliveries).toBe(1);
  });
});
