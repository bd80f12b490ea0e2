// The journal in transactional mode: the processed entry is written through the delivery's transaction, so it
// commits with the effect; a journal write that fails inside it never fails the delivery nor loses its effect.
import { describe, expect, it } from "vitest";
import { transactionalStage } from "../../src/index.js";
import { type JournalEntry, MemoryDeliveryJournal } from "../../src/journal.js";
import { MysqlDeliveryJournal, MysqlIdempotencyStore } from "../../src/mysql.js";
import { PostgresDeliveryJournal, PostgresIdempotencyStore } from "../../src/postgres.js";
import { RedisDeliveryJournal } from "../../src/redis.js";
import {
  type ClaimResult,
  createWebhookReceiver,
  type IdempotencyStore,
  type IdempotencyTransaction,
  type TransactionalIdempotencyStore,
  type TransactionSql,
  tokenVerifier,
  WebhookConfigurationError,
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

/**
 * A database in miniature, whose COMMIT of an aborted transaction rolls back without an error, as PostgreSQL's;
 * `commitFails` makes every COMMIT fail (and roll back).
 */
function fakeDatabase({ commitFails = false } = {}) {
  const committed = { keys: new Set<string>(), effects: [] as string[], journal: [] as string[] };
  let transactions = 0;
  const store: IdempotencyStore & TransactionalIdempotencyStore<FakeTx> = {
    transactionalStage,
    dialect: "postgres",
    claim: () => Promise.reject(new Error("not used")),
    complete: () => Promise.reject(new Error("not used")),
    release: () => Promise.reject(new Error("not used")),
    async begin(): Promise<IdempotencyTransaction<FakeTx>> {
      transactions++;
      const staged = { effects: [] as string[], journal: [] as string[] };
      let key: string | undefined;
      let aborted = false;
      const handle: FakeTx = {
        write: (table, row) => {
          if (aborted) throw new Error("current transaction is aborted");
          staged[table].push(row);
        },
        abort: () => {
          aborted = true;
        },
      };
      return {
        handle,
        // The journal's statement goes through the store's transaction: its "SQL" is the row to stage.
        sql: {
          dialect: "postgres",
          async query(sql, params) {
            if (sql === "ABORT") handle.abort();
            else handle.write("journal", String(params[0]));
            return { rows: [] };
          },
        },
        async claim(candidate): Promise<ClaimResult> {
          if (committed.keys.has(candidate)) return { state: "completed" };
          key = candidate;
          return { state: "claimed", attempt: 1 };
        },
        async commit() {
          if (commitFails) throw new Error("could not commit: the connection was lost");
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

/** A memory journal that writes its entry as a statement of the delivery's transaction (as the SQL journals do). */
function transactionalJournal(mode: "writes" | "throws" | "aborts" | "hangs") {
  const journal = new MemoryDeliveryJournal() as MemoryDeliveryJournal & {
    dialect: "postgres";
    recordInTransaction(entries: readonly JournalEntry[], transaction: TransactionSql): Promise<void>;
  };
  const inTransaction: JournalEntry[] = [];
  journal.dialect = "postgres";
  journal.recordInTransaction = async (entries, transaction) => {
    if (mode === "throws") throw new Error("permission denied for table kirimbayar_delivery_journal");
    if (mode === "aborts") {
      await transaction.query("ABORT", []);
      throw new Error("insert failed: the transaction is aborted");
    }
    if (mode === "hangs") await new Promise(() => {});
    for (const entry of entries) await transaction.query("INSERT", [entry.references.qris_history_id]);
    inTransaction.push(...entries);
  };
  return { journal, inTransaction };
}

function receiverOn(
  database: ReturnType<typeof fakeDatabase>,
  journal: MemoryDeliveryJournal,
  errors: WebhookErrorContext[],
  journalOutsideTransaction = false,
) {
  return createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
    idempotency: { store: database.store, transactional: true, operationTimeoutMs: 200 },
    logger: quiet,
    journal,
    journalOutsideTransaction,
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

/** Stand-ins for the drivers: the journals and stores are only built here, never asked to run a statement. */
const pgPool = {
  query: async () => ({ rows: [] }),
  connect: async () => ({ query: async () => ({ rows: [] }), release() {} }),
};
const mysqlPool = {
  query: async () => [[], []] as [unknown, unknown],
  execute: async () => [[], []] as [unknown, unknown],
  getConnection: async () => ({ ...mysqlPool, release() {}, destroy() {} }),
};
const redisClient = { call: async () => null };

function transactionalReceiver(
  store: IdempotencyStore & TransactionalIdempotencyStore,
  journal: MemoryDeliveryJournal | PostgresDeliveryJournal | MysqlDeliveryJournal | RedisDeliveryJournal,
  journalOutsideTransaction?: boolean,
) {
  return createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
    idempotency: { store, transactional: true },
    logger: quiet,
    journal,
    ...(journalOutsideTransaction === undefined ? {} : { journalOutsideTransaction }),
  });
}

describe("a transactional receiver's journal, checked when the receiver is built", () => {
  const postgresStore = new PostgresIdempotencyStore({ pool: pgPool });
  const mysqlStore = new MysqlIdempotencyStore({ pool: mysqlPool });

  it("takes the SQL journal of the store's database, whatever connection it was given", () => {
    expect(() => transactionalReceiver(postgresStore, new PostgresDeliveryJournal({ pool: pgPool }))).not.toThrow();
    expect(() => transactionalReceiver(mysqlStore, new MysqlDeliveryJournal({ pool: mysqlPool }))).not.toThrow();
  });

  it("refuses a journal of the other database, naming the one to pass", () => {
    const refusal = () => transactionalReceiver(mysqlStore, new PostgresDeliveryJournal({ pool: pgPool }));
    expect(refusal).toThrow(WebhookConfigurationError);
    expect(refusal).toThrow(
      "createWebhookReceiver(qris): the journal writes PostgreSQL statements, but the idempotency store's transactions are on MySQL, so its entry could never commit with the effect. Pass MysqlDeliveryJournal of \"@kirimbayar/core/mysql\" (given any pool, connection or binding to the same database: the entry goes through the delivery's transaction), or journalOutsideTransaction: true to accept entries written after the answer.",
    );
    expect(() => transactionalReceiver(postgresStore, new MysqlDeliveryJournal({ pool: mysqlPool }))).toThrow(
      /writes MySQL statements, .* on PostgreSQL, .* Pass PostgresDeliveryJournal of "@kirimbayar\/core\/postgres"/,
    );
  });

  it("refuses the memory and Redis journals, which never write in a transaction, and says so", () => {
    expect(() => transactionalReceiver(postgresStore, new MemoryDeliveryJournal())).toThrow(
      /this journal \(kind "memory"\) never writes in a transaction \(memory and Redis journals never do\).* Pass PostgresDeliveryJournal of "@kirimbayar\/core\/postgres".*journalOutsideTransaction: true/,
    );
    expect(() => transactionalReceiver(mysqlStore, new RedisDeliveryJournal({ client: redisClient }))).toThrow(
      /kind "redis"\) never writes in a transaction.* Pass MysqlDeliveryJournal of "@kirimbayar\/core\/mysql"/,
    );
  });

  it("refuses an SQL journal beside a store of your own that does not say its database", () => {
    const { store } = fakeDatabase();
    const { dialect: _unsaid, ...anonymous } = store;
    expect(() => transactionalReceiver(anonymous, new PostgresDeliveryJournal({ pool: pgPool }))).toThrow(
      /the idempotency store does not say which database its transactions are on \(a store of your own sets `dialect` and gives each transaction `sql`\)/,
    );
  });

  it("takes any journal with journalOutsideTransaction, and any journal without transactional handlers", () => {
    expect(() => transactionalReceiver(postgresStore, new MemoryDeliveryJournal(), true)).not.toThrow();
    expect(() =>
      transactionalReceiver(postgresStore, new MysqlDeliveryJournal({ pool: mysqlPool }), true),
    ).not.toThrow();
    expect(() =>
      createWebhookReceiver({
        source: "qris",
        verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
        idempotency: { store: mysqlStore },
        journal: new PostgresDeliveryJournal({ pool: pgPool }),
      }),
    ).not.toThrow();
  });
});

describe("a journal outside the transaction (journalOutsideTransaction: true)", () => {
  it("records the processed entry once, after the answer, never in the transaction", async () => {
    const database = fakeDatabase();
    const journal = new MemoryDeliveryJournal();
    const errors: WebhookErrorContext[] = [];
    const receiver = receiverOn(database, journal, errors, true);
    expect((await receiver.handle(delivery("out-1"))).status).toBe(200);
    expect(database.committed).toMatchObject({ effects: ["out-1"], journal: [] });
    const [entry, ...more] = await searchSoon(journal, "out-1", 1);
    expect(entry).toMatchObject({ outcome: "processed", httpStatus: 200 });
    expect(more).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("records what the delivery came to when its COMMIT fails: failed, never a processed entry first", async () => {
    const database = fakeDatabase({ commitFails: true });
    const journal = new MemoryDeliveryJournal();
    const receiver = receiverOn(database, journal, [], true);
    expect((await receiver.handle(delivery("out-2"))).status).toBe(500);
    await sleep(40);
    expect((await searchSoon(journal, "out-2", 1)).map((entry) => entry.outcome)).toEqual(["failed"]);
  });
});
