// What every durable journal (Postgres, MySQL, Redis) must do, run against each on its real server: entries found by
// each reference and by idempotency key, newest first, with their fields; filters; hostile and over-long text stored
// as they are (NUL too) and cut; per-source summaries; reconcile runs; retention. (The shared contract of journal-core runs too.)
import { expect, it } from "vitest";
import type { DeliveryJournal, JournalEntry } from "../../src/journal/types.js";

/** A fresh journal (its own table or key prefix), and its retention in ms. */
export type JournalMaker = (options?: {
  retentionMs?: number;
}) => Promise<DeliveryJournal & { flush(): Promise<void> }>;

let serial = 0;
/** A unique reference, so tests sharing a journal never see each other's entries. */
export const unique = (label: string) => `${label}-${Date.now().toString(36)}-${serial++}`;

/** An entry of `source` with sensible defaults. */
export function entry(overrides: Partial<JournalEntry> = {}): JournalEntry {
  return {
    at: Date.now(),
    source: "qris",
    origin: "webhook",
    event: "payment.success",
    state: "payment.success",
    references: { qris_history_id: unique("h") },
    idempotencyKey: unique("key"),
    attempt: 1,
    httpStatus: 200,
    outcome: "processed",
    handlerMs: 12.5,
    instance: "test:1",
    ...overrides,
  };
}

export function journalStoreContract(make: JournalMaker): void {
  it("finds an entry by each reference and by its idempotency key, with every field", async () => {
    const journal = await make();
    const payment = entry({
      source: "payment",
      event: "payment.callback",
      state: "paid",
      references: { payment_id: unique("pay"), order_id: unique("ord") },
      attempt: 3,
      httpStatus: 500,
      outcome: "failed",
      error: "handler threw: out of stock",
    });
    const order = entry({
      source: "orders",
      event: "order.status",
      state: "DELIVERED",
      references: { order_no: unique("no"), cnote: unique("cn") },
    });
    await journal.record([payment, order]);
    for (const reference of [payment.references.payment_id, payment.references.order_id, payment.idempotencyKey]) {
      const found = await journal.search({ reference: reference as string });
      expect(found).toHaveLength(1);
      const { id, ...rest } = found[0] as JournalEntry;
      expect(typeof id).toBe("string");
      expect(rest).toEqual(payment);
    }
    for (const reference of [order.references.order_no, order.references.cnote]) {
      expect((await journal.search({ reference: reference as string })).map((e) => e.state)).toEqual(["DELIVERED"]);
    }
    expect(await journal.search({ reference: unique("nothing") })).toEqual([]);
    await journal.close();
  });

  it("answers newest first and applies source, time, outcome filters and the limit", async () => {
    const journal = await make();
    const history = unique("h");
    const t0 = Date.now() - 10_000;
    const entries = [0, 1, 2, 3, 4].map((i) =>
      entry({
        at: t0 + i * 1_000,
        references: { qris_history_id: history },
        attempt: i + 1,
        outcome: i < 2 ? "failed" : i === 4 ? "duplicate" : "processed",
        httpStatus: i < 2 ? 500 : 200,
      }),
    );
    // Recorded out of order, in separate calls: the order comes from `at`.
    for (const e of [entries[3], entries[0], entries[4], entries[1], entries[2]])
      await journal.record([e as JournalEntry]);
    const all = await journal.search({ reference: history });
    expect(all.map((e) => e.attempt)).toEqual([5, 4, 3, 2, 1]);
    expect((await journal.search({ reference: history, limit: 2 })).map((e) => e.attempt)).toEqual([5, 4]);
    expect(
      (await journal.search({ reference: history, since: t0 + 1_000, before: t0 + 4_000 })).map((e) => e.attempt),
    ).toEqual([4, 3, 2]);
    expect((await journal.search({ reference: history, outcomes: ["failed"] })).map((e) => e.attempt)).toEqual([2, 1]);
    expect(await journal.search({ reference: history, source: "orders" })).toEqual([]);
    expect(await journal.search({ reference: history, outcomes: [] })).toEqual([]);
    // Without a reference: the newest of the whole journal, filtered.
    const recent = await journal.search({ since: t0, outcomes: ["duplicate"], limit: 1000 });
    expect(recent.map((e) => e.references.qris_history_id)).toContain(history);
    await journal.close();
  });

  it("stores hostile and over-long text as inert text, cut to its column, and finds it again", async () => {
    const journal = await make();
    const script = `<script>alert(1)</script>' OR '1'='1; DROP TABLE x; --${unique("")}`;
    const long = `${unique("long")}${"é".repeat(400)}😀`;
    const nul = `${unique("nul")}\u0000after`;
    await journal.record([
      entry({ references: { qris_history_id: script }, error: "x".repeat(2_000) }),
      entry({ references: { order_no: long }, source: "orders" }),
      entry({ references: { cnote: nul }, source: "orders" }),
    ]);
    const [hostile] = await journal.search({ reference: script });
    expect(hostile?.references.qris_history_id).toBe(script);
    expect(hostile?.error).toHaveLength(500);
    const [cut] = await journal.search({ reference: long });
    expect(cut?.references.order_no).toBe(Array.from(long).slice(0, 191).join(""));
    const [withNul] = await journal.search({ reference: nul });
    expect(withNul?.references.cnote).toBe(nul);
    await journal.close();
  });

  it("summarizes each source since a time, zeros included, with the last success even before the window", async () => {
    const journal = await make();
    const now = Date.now();
    const before = await journal.summarize(now - 60_000);
    await journal.record([
      entry({ source: "payment", at: now - 3_600_000, httpStatus: 200 }),
      entry({ source: "payment", at: now - 1_000, httpStatus: 500, outcome: "failed" }),
      entry({ source: "payment", at: now - 900, httpStatus: 401, outcome: "refused" }),
      entry({ source: "payment", at: now - 800, httpStatus: 409, outcome: "in_progress" }),
      entry({ source: "payment", at: now - 700, httpStatus: 200, outcome: "duplicate" }),
      entry({ source: "payment", at: now - 600, httpStatus: 200, origin: "reconciliation" }),
    ]);
    const after = await journal.summarize(now - 60_000);
    expect(after.map((s) => s.source)).toEqual(["qris", "payment", "orders"]);
    const payment = after[1];
    const was = before[1];
    expect(payment?.deliveries).toBe((was?.deliveries ?? 0) + 5);
    expect(payment?.failures).toBe((was?.failures ?? 0) + 1);
    expect(payment?.refused).toBe((was?.refused ?? 0) + 1);
    expect(payment?.duplicates).toBe((was?.duplicates ?? 0) + 2);
    // The last webhook answered 2xx: the duplicate at now - 700 (the reconciliation's does not count).
    expect(payment?.lastSuccessAt).toBeGreaterThanOrEqual(now - 700);
    await journal.close();
  });

  it("keeps reconcile runs, newest first", async () => {
    const journal = await make();
    const t = Date.now();
    await journal.recordReconcileRun({
      startedAt: t - 5_000,
      finishedAt: t - 4_000,
      references: 3,
      outcomes: { applied: 1, unchanged: 2 },
      instance: "a",
    });
    await journal.recordReconcileRun({
      startedAt: t - 2_000,
      finishedAt: t - 1_000,
      references: 1,
      outcomes: { applied: 0 },
      instance: "b",
    });
    const runs = await journal.reconcileRuns(2);
    expect(runs.map((r) => r.instance)).toEqual(["b", "a"]);
    expect(runs[1]).toMatchObject({
      startedAt: t - 5_000,
      finishedAt: t - 4_000,
      references: 3,
      outcomes: { applied: 1, unchanged: 2 },
    });
    expect(typeof runs[0]?.id).toBe("string");
    await journal.close();
  });

  it("deletes entries past retention and keeps the others", async () => {
    const journal = await make({ retentionMs: 60_000 });
    const old = entry({ at: Date.now() - 120_000 });
    const fresh = entry();
    await journal.record([old, fresh]);
    expect(await journal.deleteExpired()).toBeGreaterThanOrEqual(1);
    expect(await journal.search({ reference: old.references.qris_history_id as string })).toEqual([]);
    expect(await journal.search({ reference: fresh.references.qris_history_id as string })).toHaveLength(1);
    await journal.close();
  });

  it("writes what is buffered on close, and refuses entries after", async () => {
    const journal = await make();
    const late = entry();
    const recorded = journal.record([late]);
    await journal.close();
    await recorded;
    expect(await journal.search({ reference: late.idempotencyKey as string })).toHaveLength(1);
    await expect(journal.record([entry()])).rejects.toThrow(/closed/);
  });
}
