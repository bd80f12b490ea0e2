// The contract every DeliveryJournal keeps (memory, PostgreSQL, MySQL, Redis): run inside a describe block, with a
// factory giving a journal. Tests use references of their own, so a journal shared between tests (one table) works.
//
//   describe("my journal", () => journalContract(async ({ retentionMs, clock }) => new MyJournal({ retentionMs, clock })));
import { expect, it } from "vitest";
import type { DeliveryJournal, JournalEntry } from "../../src/journal/types.js";

/** Options the contract builds journals with; a journal that reads its database's clock may ignore `clock`. */
export interface JournalContractOptions {
  readonly retentionMs: number;
  readonly clock: () => number;
}

/** A journal for the contract; `flush` (when it batches) makes what was recorded searchable. */
export type JournalContractMaker = (
  options: JournalContractOptions,
) => Promise<DeliveryJournal & { flush?(): Promise<void> }>;

const HOUR = 60 * 60 * 1000;
let serial = 0;
/** A reference unique across runs and tests. */
export const uniqueReference = (label: string) =>
  `${label}-${Date.now().toString(36)}-${(serial++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** A processed QR webhook entry; every field overridable. */
export function journalEntry(overrides: Partial<JournalEntry> = {}): JournalEntry {
  return {
    at: Date.now(),
    source: "qris",
    origin: "webhook",
    event: "payment.success",
    state: "payment.success",
    references: { qris_history_id: uniqueReference("h") },
    idempotencyKey: uniqueReference("qris:payment.success"),
    attempt: 1,
    httpStatus: 200,
    outcome: "processed",
    handlerMs: 3.25,
    instance: "contract:1",
    ...overrides,
  };
}

/** Registers the contract's tests for journals made by `make`. */
export function journalContract(make: JournalContractMaker): void {
  const defaults: JournalContractOptions = { retentionMs: 7 * 24 * HOUR, clock: Date.now };
  const recorded = async (journal: Awaited<ReturnType<JournalContractMaker>>, entries: JournalEntry[]) => {
    await journal.record(entries);
    await journal.flush?.();
  };

  it("finds an entry by each of its references and by its idempotency key, with its fields", async () => {
    const journal = await make(defaults);
    const qris = journalEntry({ error: "Error: handler failed", attempt: 2, httpStatus: 500, outcome: "failed" });
    const payment = journalEntry({
      source: "payment",
      event: "payment.callback",
      state: "PAID",
      references: { payment_id: uniqueReference("pay"), order_id: uniqueReference("ord") },
      idempotencyKey: uniqueReference("payment"),
    });
    const order = journalEntry({
      source: "orders",
      origin: "reconciliation",
      event: "order.status",
      state: "Dikirim",
      references: { order_no: uniqueReference("SO"), cnote: uniqueReference("CN") },
      idempotencyKey: uniqueReference("orders"),
    });
    await recorded(journal, [qris, payment, order]);
    for (const entry of [qris, payment, order]) {
      for (const reference of [...Object.values(entry.references), entry.idempotencyKey as string]) {
        const found = await journal.search({ reference });
        expect(found, reference).toHaveLength(1);
        const { id, ...fields } = found[0] as JournalEntry;
        expect(typeof id).toBe("string");
        expect(fields).toMatchObject({ ...entry, references: entry.references });
      }
    }
    expect(await journal.search({ reference: uniqueReference("nothing") })).toEqual([]);
  });

  it("answers newest first and applies the source, time and outcome filters and the limit", async () => {
    const journal = await make(defaults);
    const reference = uniqueReference("story");
    const now = Date.now();
    const story = [5, 4, 3, 2, 1].map((minutesAgo, index) =>
      journalEntry({
        at: now - minutesAgo * 60_000,
        references: { qris_history_id: reference },
        outcome: index === 2 ? "duplicate" : index < 2 ? "failed" : "processed",
        httpStatus: index < 2 ? 500 : 200,
      }),
    );
    await recorded(journal, [story[2], story[0], story[4], story[1], story[3]] as JournalEntry[]);
    const found = await journal.search({ reference });
    expect(found.map((entry) => entry.at)).toEqual(story.map((entry) => entry.at).reverse());
    expect(await journal.search({ reference, limit: 2 })).toHaveLength(2);
    expect((await journal.search({ reference, limit: 2 }))[0]?.at).toBe(story[4]?.at);
    expect(await journal.search({ reference, source: "payment" })).toEqual([]);
    expect(await journal.search({ reference, source: "qris" })).toHaveLength(5);
    const since = story[2]?.at as number;
    expect((await journal.search({ reference, since })).map((entry) => entry.at)).toEqual([
      story[4]?.at,
      story[3]?.at,
      story[2]?.at,
    ]);
    expect((await journal.search({ reference, before: since })).map((entry) => entry.at)).toEqual([
      story[1]?.at,
      story[0]?.at,
    ]);
    const failures = await journal.search({ reference, outcomes: ["failed"] });
    expect(failures.map((entry) => entry.outcome)).toEqual(["failed", "failed"]);
    expect(await journal.search({ reference, outcomes: ["failed", "duplicate"] })).toHaveLength(3);
  });

  it("stores hostile text as it is and finds it by it", async () => {
    const journal = await make(defaults);
    const hostile = [
      `<script>alert("x")</script>-${uniqueReference("a")}`,
      `javascript:alert(1)//${uniqueReference("b")}`,
      `'; DROP TABLE kirimbayar_delivery_journal; --${uniqueReference("c")}`,
      `%00\u0000-\u202e-😀-"quoted"-${uniqueReference("d")}`,
    ];
    const entries = hostile.map((reference) =>
      journalEntry({
        references: { qris_history_id: reference },
        error: `Error: <img src=x onerror=alert(1)> ${reference}`,
        state: "<b>paid</b>",
      }),
    );
    await recorded(journal, entries);
    for (const reference of hostile) {
      const [found] = await journal.search({ reference });
      expect(found?.references.qris_history_id).toBe(reference);
      expect(found?.error).toBe(`Error: <img src=x onerror=alert(1)> ${reference}`);
      expect(found?.state).toBe("<b>paid</b>");
    }
  });

  it("summarizes each source since a time, zeros included, with its last webhook success", async () => {
    const journal = await make(defaults);
    const before = await journal.summarize(Date.now() - HOUR);
    expect(before.map((summary) => summary.source)).toEqual(["qris", "payment", "orders"]);
    const now = Date.now();
    const count = (source: string) => before.find((summary) => summary.source === source);
    await recorded(journal, [
      journalEntry({ source: "orders", at: now - 3 * HOUR, httpStatus: 200, outcome: "processed" }),
      journalEntry({ source: "orders", at: now - 1000, httpStatus: 500, outcome: "failed" }),
      journalEntry({ source: "orders", at: now - 900, httpStatus: 401, outcome: "refused" }),
      journalEntry({ source: "orders", at: now - 800, httpStatus: 409, outcome: "in_progress" }),
      journalEntry({ source: "orders", at: now - 700, httpStatus: 200, outcome: "duplicate" }),
      journalEntry({ source: "orders", at: now - 600, httpStatus: 200, origin: "reconciliation" }),
    ]);
    const after = await journal.summarize(now - HOUR);
    const orders = after.find((summary) => summary.source === "orders");
    const earlier = count("orders");
    expect(orders).toMatchObject({
      deliveries: (earlier?.deliveries ?? 0) + 5,
      failures: (earlier?.failures ?? 0) + 1,
      refused: (earlier?.refused ?? 0) + 1,
      duplicates: (earlier?.duplicates ?? 0) + 2,
    });
    // The duplicate 700 ms ago is the last webhook answered 2xx (the reconciliation's entry is not a webhook).
    expect(orders?.lastSuccessAt).toBeGreaterThanOrEqual(now - 700);
    expect(orders?.lastSuccessAt).toBeLessThan(now - 600);
    expect(after.find((summary) => summary.source === "qris")?.deliveries).toBeGreaterThanOrEqual(0);
  });

  it("keeps reconcile runs, newest first, up to a limit", async () => {
    const journal = await make(defaults);
    const now = Date.now() + 60_000;
    const runs = [3, 1, 2].map((offset) => ({
      startedAt: now + offset * 1000,
      finishedAt: now + offset * 1000 + 500,
      references: offset * 10,
      outcomes: { applied: offset, already_applied: 1, pending: 0 },
      instance: "contract:1",
    }));
    for (const run of runs) await journal.recordReconcileRun(run);
    await journal.flush?.();
    const latest = await journal.reconcileRuns(2);
    expect(latest.map((run) => run.startedAt)).toEqual([now + 3000, now + 2000]);
    expect(latest[0]).toMatchObject({ references: 30, outcomes: { applied: 3, already_applied: 1, pending: 0 } });
    expect(typeof latest[0]?.id).toBe("string");
  });

  it("deletes entries past their retention and keeps the others", async () => {
    let now = Date.now();
    const journal = await make({ retentionMs: HOUR, clock: () => now });
    const reference = uniqueReference("old");
    await recorded(journal, [
      journalEntry({ at: now - 2 * HOUR, references: { qris_history_id: reference } }),
      journalEntry({ at: now - 1000, references: { qris_history_id: reference } }),
    ]);
    expect(await journal.deleteExpired()).toBeGreaterThanOrEqual(1);
    const kept = await journal.search({ reference });
    expect(kept.map((entry) => entry.at)).toEqual([now - 1000]);
    now += 2 * HOUR;
    if ((await journal.deleteExpired()) > 0) expect(await journal.search({ reference })).toEqual([]);
    await journal.close();
  });
}
