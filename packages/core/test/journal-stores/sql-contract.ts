// What the SQL journals (PostgreSQL, MySQL) must both do on their real server, beside the store contract: the store
// contract over the driver's pool and over an ORM binding, the shared journal contract, entries written through the
// delivery's transaction (driver and binding) that commit and roll back with it, a table that refuses writes (a
// typed error without the entry's values), the shipped migration, and the idempotency store's inspect(). Each
// dialect's test file gives a harness: how to build its journal, open a transaction, refuse inserts.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DeliveryJournalWriteError } from "../../src/journal/store-support/errors.js";
import type { DeliveryJournal, IdempotencyRecordView } from "../../src/journal/types.js";
import { journalContract } from "../support/journal-contract.js";
import { entry, journalStoreContract, unique } from "./contract.js";

let tables = 0;
/** A table name no other test of this file's server uses (`journal_3`, `events_4`). */
export const freshTable = (prefix = "journal") => `${prefix}_${tables++}`;

/** An SQL journal as the suites use it. */
export type SqlJournal = DeliveryJournal & { flush(): Promise<void>; ensureSchema(): Promise<void> };

/** A transaction begun on one connection of the pool, and how it ends (commit or roll back, then release). */
export interface OpenTransaction {
  readonly connection: unknown;
  end(commit: boolean): Promise<void>;
}

/** The idempotency store of the same database, as its inspect() test uses it. */
export interface InspectableStore {
  ensureSchema(): Promise<void>;
  claim(key: string, owner: string, ttlMs: number): Promise<unknown>;
  release(key: string, owner: string, ttlMs: number): Promise<unknown>;
  complete(key: string, owner: string, ttlMs: number): Promise<unknown>;
  inspect(key: string): Promise<IdempotencyRecordView | undefined>;
}

/** What a dialect's test file gives the SQL suites (called once its server is up, inside the tests). */
export interface SqlJournalHarness {
  /** The journal class, as the suites name it (`PostgresDeliveryJournal`). */
  readonly journalName: string;
  /** The store class, as the suites name it (`PostgresIdempotencyStore`). */
  readonly storeName: string;
  /** The driver and the binding's library, as the suites name them (`pg`, `TypeORM`). */
  readonly driver: string;
  readonly bindingLibrary: string;
  /** A journal on `table` (its schema ensured) over the driver's pool or over the binding. */
  journal(over: "pool" | "binding", options: { table: string; retentionMs?: number }): Promise<SqlJournal>;
  /** A transaction begun on one connection of the pool. */
  begin(): Promise<OpenTransaction>;
  /** Runs `work` in a binding transaction: committed when it resolves, rolled back when it throws. */
  inBindingTransaction(work: (transaction: unknown) => Promise<void>): Promise<void>;
  /** Rows of `table` seen inside a binding transaction, when the dialect checks it (before the commit). */
  countInside?(transaction: unknown, table: string): Promise<number>;
  /** Makes `table` refuse every insert with the message "journal table is read-only". */
  refuseInserts(table: string): Promise<void>;
  /** What a write error must never show besides the entry's values (the server's URL). */
  secrets(): readonly string[];
  /** The shipped migration file, and the statements ensureSchema() runs. */
  readonly migration: URL;
  schema(): string[];
  /** A fresh idempotency store on `table`. */
  store(table: string): InspectableStore;
}

/** The statements of a migration file: its comment lines dropped, split at `;`. */
export function migrationStatements(file: URL): string[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => !line.startsWith("--"))
    .join("\n")
    .split(";")
    .map((statement) => statement.trim())
    .filter(Boolean);
}

/**
 * `pool` with its `method` watched: `seen` hears each statement's text (a named statement's too) and values before
 * the pool runs it.
 */
export function watchedPool<P extends object>(
  pool: P,
  method: "query" | "execute",
  seen: (sql: string, values: unknown[] | undefined) => void,
): P {
  return new Proxy(pool, {
    get(target, property, receiver) {
      if (property !== method) return Reflect.get(target, property, receiver);
      // Text, or a named statement's config ({ name, text, values }).
      return (text: string | { text: string }, values?: unknown[]) => {
        seen(typeof text === "string" ? text : text.text, values);
        return (target as Record<string, (...args: unknown[]) => unknown>)[method]?.(text, values);
      };
    },
  });
}

/** Every SQL-journal suite of `harness`, each in its own describe. */
export function sqlJournalContract(harness: SqlJournalHarness): void {
  const { journalName } = harness;
  const make =
    (over: "pool" | "binding") =>
    (options: { retentionMs?: number } = {}) =>
      harness.journal(over, { table: freshTable(), ...options });

  describe(`${journalName} over a ${harness.driver} pool`, () => {
    journalStoreContract(make("pool"));
  });

  describe(`${journalName} over a ${harness.bindingLibrary} binding`, () => {
    journalStoreContract(make("binding"));
  });

  describe(journalName, () => {
    it(`writes through the delivery's ${harness.driver} transaction: committed with it, rolled back with it`, async () => {
      const journal = await make("pool")();
      for (const commit of [true, false]) {
        const transaction = await harness.begin();
        const e = entry();
        await journal.record([e], transaction.connection);
        await transaction.end(commit);
        expect(await journal.search({ reference: e.idempotencyKey as string })).toHaveLength(commit ? 1 : 0);
      }
      await journal.close();
    });

    it(`writes through a ${harness.bindingLibrary} transaction: committed with it, rolled back with it`, async () => {
      const table = freshTable();
      const journal = await harness.journal("binding", { table });
      const committed = entry();
      await harness.inBindingTransaction(async (transaction) => {
        await journal.record([committed], transaction);
        // Visible inside the transaction before it commits: it went through it, not through the batch.
        if (harness.countInside !== undefined) expect(await harness.countInside(transaction, table)).toBe(1);
      });
      const rolledBack = entry();
      await expect(
        harness.inBindingTransaction(async (transaction) => {
          await journal.record([rolledBack], transaction);
          throw new Error("the handler failed");
        }),
      ).rejects.toThrow("the handler failed");
      expect(await journal.search({ reference: committed.idempotencyKey as string })).toHaveLength(1);
      expect(await journal.search({ reference: rolledBack.idempotencyKey as string })).toHaveLength(0);
      await journal.close();
    });

    it("rejects with a typed error, without the entry's values, when the table refuses writes", async () => {
      const table = freshTable();
      const journal = await harness.journal("pool", { table });
      await harness.refuseInserts(table);
      const secret = "sk_live_SECRET_must_not_leak";
      const e = entry({ references: { qris_history_id: secret }, error: `token=${secret}` });
      const batched = await journal.record([e]).catch((error: unknown) => error);
      const transaction = await harness.begin();
      const inTransaction = await journal.record([e], transaction.connection).catch((error: unknown) => error);
      await transaction.end(false);
      for (const error of [batched, inTransaction]) {
        expect(error).toBeInstanceOf(DeliveryJournalWriteError);
        expect((error as DeliveryJournalWriteError).code).toBe("delivery_journal_write_failed");
        const shown = JSON.stringify(error, Object.getOwnPropertyNames(error)) + String((error as Error).cause);
        expect(shown).toContain("read-only");
        expect(shown).not.toContain(secret);
        for (const hidden of harness.secrets()) expect(shown).not.toContain(hidden);
      }
      await journal.close();
    });

    it("ships a migration file identical to ensureSchema()", () => {
      expect(migrationStatements(harness.migration)).toEqual(harness.schema());
    });
  });

  describe(`${harness.storeName}.inspect`, () => {
    it("shows the record's state and attempts, never its owner", async () => {
      const store = harness.store(freshTable("events"));
      await store.ensureSchema();
      const key = unique("evt");
      expect(await store.inspect(key)).toBeUndefined();
      await store.claim(key, "owner-secret-token", 60_000);
      const held = await store.inspect(key);
      expect(held).toMatchObject({ key, state: "in_progress", attempt: 1 });
      expect(held?.expiresAt).toBeGreaterThan(Date.now());
      expect(held?.expiresAt).toBeLessThan(Date.now() + 61_000);
      expect(JSON.stringify(held)).not.toContain("owner-secret-token");
      await store.release(key, "owner-secret-token", 60_000);
      expect(await store.inspect(key)).toMatchObject({ state: "released", attempt: 1 });
      await store.claim(key, "o2", 60_000);
      await store.complete(key, "o2", 3_600_000);
      const done = await store.inspect(key);
      expect(done).toMatchObject({ state: "completed", attempt: 2 });
      expect(done?.expiresAt).toBeGreaterThan(Date.now() + 3_000_000);
    });
  });

  describe(`${journalName}: the shared journal contract`, () => {
    journalContract(({ retentionMs }) => harness.journal("pool", { table: freshTable(), retentionMs }));
  });
}
