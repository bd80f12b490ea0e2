// The journal in transactional mode: the processed entry is written through the delivery's transaction, so it
// commits with the effect; a journal write that fails inside it never fails the delivery nor loses its effect.
import { describe, expect, it } from "vitest";
import { transactionalStage } from "../../src/index.js";
import { type JournalEntry, MemoryDeliveryJournal } from "../../src/journal.js";
import {
  type ClaimResult,
  createWebhookReceiver,
  type IdempotencyStore,
  type IdempotencyTransaction,
  type TransactionalIdempotencyStore,
  tokenVerifier,
  type WebhookErrorContext,
} from "../../src/webhooks.js";
import { qrisSuccess, webhookRequest } from "../support/webhook-requests.js";

const TOKEN = "tx-journal-token";
const quiet = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const delivery = (id: string) =>
  webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });

/** An open transaction as the handlers and the journal see it: writes staged until commit. */
interface FakeTx {
  write(table: "effects" | "journal", row: string): void;
  /** Like PostgreSQL after a failed statement: the transaction is aborted and its COMMIT rolls back silently. */
  abort(): void;
}

/** A database in miniature, whose COMMIT of an aborted transaction rolls back without an error, as PostgreSQL's. */
function fakeDatabase() {
  const committed = { keys: new Set<string>(), effects: [] as string[], journal: [] as string[] };
  let transactions = 0;
  const store: IdempotencyStore & TransactionalIdempotencyStore<FakeTx> = {
    transactionalStage,
    claim: () => Promise.reject(new Error("not used")),
    complete: () => Promise.reject(new Error("not used")),
    release: () => Promise.reject(new Error("not used")),
    async begin(): Promise<IdempotencyTransaction<FakeTx>> {
      transactions++;
      const staged = { effects: [] as string[], journal: [] as string[] };
      let key: string | undefined;
      let aborted = false;
      return {
        handle: {
          write: (table, row) => {
            if (aborted) throw new Error("current transaction is aborted");
            staged[table].push(row);
          },
          abort: () => {
            aborted = true;
          },
        },
        async claim(candidate): Promise<ClaimResult> {
          if (committed.keys.has(candidate)) return { state: "completed" };
          key = candidate;
          return { state: "claimed", attempt: 1 };
        },
        async commit() {
          if (aborted) return; // ROLLBACK, answered as a successful COMMIT
          if (key !== undefined) committed.keys.add(key);
          committed.effects.push(...staged.effects);
          committed.journal.push(...staged.journal);
        },
        async rollback() {},
      };
    },
  };
  return { store, committed, transactions: () => transactions };
}

/** A memory journal that, given the transaction, writes a row through it (as the SQL journals do), or fails. */
function transactionalJournal(mode: "writes" | "throws" | "aborts" | "hangs") {
  const journal = new MemoryDeliveryJournal();
  const inTransaction: JournalEntry[] = [];
  const record = journal.record.bind(journal);
  journal.record = async (entries: readonly JournalEntry[], transaction?: unknown) => {
    if (transaction === undefined) return record(entries);
    const tx = transaction as FakeTx;
    if (mode === "throws") throw new Error("permission denied for table kirimbayar_delivery_journal");
    if (mode === "aborts") {
      tx.abort();
      throw new Error("insert failed: the transaction is aborted");
    }
    if (mode === "hangs") await new Promise(() => {});
    for (const entry of entries) tx.write("journal", entry.references.qris_history_id as string);
    inTransaction.push(...entries);
  };
  return { journal, inTransaction };
}

function receiverOn(
  database: ReturnType<typeof fakeDatabase>,
  journal: MemoryDeliveryJournal,
  errors: WebhookErrorContext[],
) {
  return createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
    idempotency: { store: database.store, transactional: true, operationTimeoutMs: 200 },
    logger: quiet,
    journal,
  })
    .on("payment.success", (event, ctx) => ctx.transaction.write("effects", event.data.qris_history_id as string))
    .onError((_error, context) => {
      errors.push(context);
    });
}

async function searchSoon(journal: MemoryDeliveryJournal, reference: string, count: number) {
  for (let tries = 0; tries < 200; tries++) {
    const found = await journal.search({ reference });
    if (found.length >= count) return found;
    await sleep(5);
  }
  return journal.search({ reference });
}

describe("the journal with transactional handlers", () => {
  it("writes the processed entry through the delivery's transaction, so it commits with the effect", async () => {
    const database = fakeDatabase();
    const { journal, inTransaction } = transactionalJournal("writes");
    const errors: WebhookErrorContext[] = [];
    const receiver = receiverOn(database, journal, errors);
    expect((await receiver.handle(delivery("tx-1"))).status).toBe(200);
    expect(database.committed).toMatchObject({ effects: ["tx-1"], journal: ["tx-1"] });
    expect(inTransaction).toHaveLength(1);
    expect(inTransaction[0]).toMatchObject({ outcome: "processed", httpStatus: 200, attempt: 1 });
    // Not written a second time outside the transaction.
    await sleep(20);
    expect(await journal.search({ reference: "tx-1" })).toEqual([]);
    // The duplicate is journalled outside (nothing to commit).
    expect((await receiver.handle(delivery("tx-1"))).status).toBe(200);
    expect((await searchSoon(journal, "tx-1", 1)).map((entry) => entry.outcome)).toEqual(["duplicate"]);
    expect(errors).toEqual([]);
  });

  for (const mode of ["throws", "aborts", "hangs"] as const) {
    it(`answers 200 and commits the effect once when the journal's write in the transaction ${mode}`, async () => {
      const database = fakeDatabase();
      const { journal } = transactionalJournal(mode);
      const errors: WebhookErrorContext[] = [];
      const receiver = receiverOn(database, journal, errors);
      const started = Date.now();
      const response = await receiver.handle(delivery(`tx-${mode}`));
      expect(response.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(2_000);
      // The transaction the journal broke was rolled back; the delivery ran again in a second one, without it.
      expect(database.transactions()).toBe(2);
      expect(database.committed.effects).toEqual([`tx-${mode}`]);
      expect(database.committed.journal).toEqual([]);
      expect(errors.map((context) => [context.stage, context.status])).toEqual([["journal", 200]]);
      // The entry is recorded outside, after the answer.
      const [entry] = await searchSoon(journal, `tx-${mode}`, 1);
      expect(entry).toMatchObject({ outcome: "processed", httpStatus: 200 });
      expect((await receiver.handle(delivery(`tx-${mode}`))).status).toBe(200);
      expect(database.committed.effects).toEqual([`tx-${mode}`]);
    });
  }
});
