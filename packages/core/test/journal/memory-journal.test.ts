// The memory journal: the shared contract, plus its own bounds and redaction.
import { describe, expect, it } from "vitest";
import { MemoryDeliveryJournal } from "../../src/journal.js";
import { journalContract, journalEntry, uniqueReference } from "../support/journal-contract.js";

describe("MemoryDeliveryJournal", () => {
  journalContract(async ({ retentionMs, clock }) => new MemoryDeliveryJournal({ retentionMs, clock }));

  it("keeps at most maxEntries, dropping the oldest recorded, and unindexes them", async () => {
    const journal = new MemoryDeliveryJournal({ maxEntries: 3 });
    const references = [1, 2, 3, 4, 5].map((n) => uniqueReference(`r${n}`));
    await journal.record(references.map((reference) => journalEntry({ references: { qris_history_id: reference } })));
    expect(await journal.search({ reference: references[0] as string })).toEqual([]);
    expect(await journal.search({ reference: references[1] as string })).toEqual([]);
    expect(await journal.search({ reference: references[4] as string })).toHaveLength(1);
    expect(await journal.search({ limit: 1_000 })).toHaveLength(3);
  });

  it("drops bodies unless asked, and redacts the ones it keeps", async () => {
    const body = JSON.stringify({ order_no: "SO-1", callback_key: "ck-secret", url: "https://x/hook?token=t0k3n&a=1" });
    const plain = new MemoryDeliveryJournal();
    await plain.record([journalEntry({ body, references: { order_no: "SO-1" } })]);
    expect((await plain.search({ reference: "SO-1" }))[0]?.body).toBeUndefined();
    const keeping = new MemoryDeliveryJournal({ recordBodies: true });
    await keeping.record([journalEntry({ body, references: { order_no: "SO-1" } })]);
    const kept = (await keeping.search({ reference: "SO-1" }))[0]?.body as string;
    expect(JSON.parse(kept)).toEqual({
      order_no: "SO-1",
      callback_key: "[redacted]",
      url: "https://x/hook?token=[redacted]&a=1",
    });
  });

  it("refuses bounds that are not positive numbers", () => {
    expect(() => new MemoryDeliveryJournal({ maxEntries: 0 })).toThrow(/maxEntries/);
    expect(() => new MemoryDeliveryJournal({ retentionMs: Number.NaN })).toThrow(/retentionMs/);
  });

  it("bounds a search's limit to 1,000 and at least 1", async () => {
    const journal = new MemoryDeliveryJournal();
    const reference = uniqueReference("many");
    await journal.record(
      Array.from({ length: 1_200 }, (_, index) =>
        journalEntry({ at: index, references: { qris_history_id: reference } }),
      ),
    );
    expect(await journal.search({ reference, limit: 5_000 })).toHaveLength(1_000);
    expect(await journal.search({ reference, limit: 0 })).toHaveLength(1);
    expect(await journal.search({ reference })).toHaveLength(100);
  });
});
