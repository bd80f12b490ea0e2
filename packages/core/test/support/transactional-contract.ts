// The guarantees of issue 27 that every SQL binding keeps (Prisma, TypeORM, Knex, Kysely, Drizzle, Sequelize, ...),
// on a real database: a transactional delivery runs in a transaction the app's own library opens, the handler
// writes through `ctx.transaction` in that library's idiom, and the event's record commits with the effect or not
// at all. Plus the shared store contract, run through the same binding in non-transactional mode.
//
// Use it at the top level of a test file:
//   transactionalContract("prisma", async () => ({ store, markPaid, paidCount, killBackend, unreachableStore, ... }));
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DeliveryJournal } from "../../src/journal.js";
import type { IdempotencyStore, TransactionalIdempotencyStore, TransactionSql } from "../../src/webhooks.js";
import { createWebhookReceiver, tokenVerifier } from "../../src/webhooks.js";
import { storeContract } from "./store-contract.js";
import { watchedCommits } from "./watched-commits.js";
import { qrisSuccess, webhookRequest } from "./webhook-requests.js";

/** A store built on the binding under test (e.g. `new PostgresIdempotencyStore({ binding })`). */
export type BoundStore<Tx> = IdempotencyStore & TransactionalIdempotencyStore<Tx> & { ensureSchema(): Promise<void> };

/** What a binding's test gives the contract; made once (in `beforeAll`), torn down with `close`. */
export interface TransactionalFixture<Tx> {
  /**
   * A store on the fresh table `table`, built on the binding over the library's pool. The contract creates the table
   * (`ensureSchema`). The library's pool must hold at most {@link TransactionalFixture.poolSize} connections.
   */
  store(table: string): BoundStore<Tx>;
  /** How many connections the library's pool holds (small, e.g. 3): the contract checks none is lost. */
  readonly poolSize: number;
  /**
   * The handler's effect, written through the library's transaction object in the library's own idiom
   * (`tx.order.upsert(...)`, `manager.increment(...)`, ...): adds one to the paid count of order `id`, creating it.
   */
  markPaid(tx: Tx, id: string): Promise<unknown>;
  /** The committed paid count of order `id` (0 when absent), read outside any transaction. */
  paidCount(id: string): Promise<number>;
  /**
   * Kills the database backend (server process or connection) of the open transaction `tx`, as a crash between
   * the effect and the commit would: e.g. read `pg_backend_pid()` through `tx`, then `pg_terminate_backend` it from
   * another connection. Resolves once the backend is gone.
   */
  killBackend(tx: Tx): Promise<void>;
  /** A store built the same way on a database nobody listens on (e.g. port 1): every operation fails. */
  unreachableStore(): BoundStore<Tx>;
  /**
   * The SQL delivery journal of the same database on `table` (its schema ensured), over a connection of its own (the
   * driver's pool, never the library's): its transactional entries must still go through the delivery's transaction.
   */
  journal(table: string): Promise<ContractJournal>;
  /** Ends the library's pools and anything else the fixture opened. */
  close(): Promise<void>;
}

/** An SQL journal as the contract uses it. */
export type ContractJournal = DeliveryJournal & { flush(): Promise<void> };

const TOKEN = "contract-token";
const quiet = { warn: () => {}, error: () => {} };

/**
 * Registers, in a `describe(name)`, the transactional guarantees of issue 27 and the shared store contract for the
 * binding that `setup` builds. `setup` runs once, before the tests; every test gets a fresh store table and fresh
 * order ids.
 */
export function transactionalContract<Tx>(name: string, setup: () => Promise<TransactionalFixture<Tx>>): void {
  describe(name, () => {
    let fixture: TransactionalFixture<Tx>;
    let tables = 0;
    // Tables and order ids unique per run of the file: the database may outlive one run.
    const run = Math.random().toString(36).slice(2, 8);
    const table = () => `kb_${run}_${tables++}`;
    const order = (label: string) => `${run}-${label}`;

    beforeAll(async () => {
      fixture = await setup();
    }, 60_000);

    // The test's own reads go through the library's pool, which may lend a connection a test just killed before it
    // hears of its end (Knex's does): such a read is tried again, a bounded number of times.
    async function paidCount(id: string): Promise<number> {
      for (let attempt = 1; ; attempt++) {
        try {
          return await fixture.paidCount(id);
        } catch (error) {
          if (attempt >= 5) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    }

    afterAll(async () => {
      await fixture?.close();
    });

    const delivery = (id: string) =>
      webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });

    /** A receiver whose transactional handler marks the order paid through `ctx.transaction`, then runs `after`. */
    async function shop(
      options: {
        after?: (tx: Tx, id: string, signal: AbortSignal) => Promise<void>;
        idempotency?: { handlerTimeoutMs?: number; operationTimeoutMs?: number };
        store?: BoundStore<Tx>;
      } = {},
    ) {
      const store = options.store ?? fixture.store(table());
      if (options.store === undefined) await store.ensureSchema();
      let runs = 0;
      const receiver = createWebhookReceiver({
        source: "qris",
        verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
        idempotency: { store, transactional: true, ...options.idempotency },
        logger: quiet,
      }).on("payment.success", async (event, ctx) => {
        runs++;
        // Typed from the store: no cast (a wrong type here fails the typecheck of this file).
        const tx: Tx = ctx.transaction;
        const id = String(event.data.qris_history_id);
        await fixture.markPaid(tx, id);
        await options.after?.(tx, id, ctx.signal);
      });
      return { receiver, store, runs: () => runs };
    }

    describe("transactional handlers through the binding", () => {
      it("commits the effect and the event's record together; the redelivery is a duplicate", async () => {
        const id = order("commit");
        const { receiver, runs } = await shop();
        expect((await receiver.handle(delivery(id))).status).toBe(200);
        expect(await paidCount(id)).toBe(1);
        expect((await receiver.handle(delivery(id))).status).toBe(200);
        expect(await paidCount(id)).toBe(1);
        expect(runs()).toBe(1);
      });

      it("rolls back the effect with the record when the handler throws; the redelivery applies it once", async () => {
        const id = order("throws");
        let failures = 1;
        const { receiver, runs } = await shop({
          after: async () => {
            if (failures-- > 0) throw new Error("handler failed after its write");
          },
        });
        expect((await receiver.handle(delivery(id))).status).toBe(500);
        expect(await paidCount(id)).toBe(0);
        expect((await receiver.handle(delivery(id))).status).toBe(200);
        expect(await paidCount(id)).toBe(1);
        expect((await receiver.handle(delivery(id))).status).toBe(200);
        expect(await paidCount(id)).toBe(1);
        expect(runs()).toBe(2);
      });

      it("applies nothing when the backend dies between the effect and the commit; the redelivery applies it once", async () => {
        const id = order("killed");
        let killOnce = true;
        const { receiver, runs } = await shop({
          after: async (tx) => {
            if (!killOnce) return;
            killOnce = false;
            await fixture.killBackend(tx);
          },
        });
        const crashed = await receiver.handle(delivery(id));
        expect(crashed.status).toBeGreaterThanOrEqual(500);
        expect(await paidCount(id)).toBe(0);
        // The provider retries: on a loaded machine the pool may lend the dead connection once more before it hears
        // of its end (that try is answered 503 and runs nothing); a later try applies the event.
        let status = 0;
        for (let attempt = 0; attempt < 10 && status !== 200; attempt++) {
          status = (await receiver.handle(delivery(id))).status;
          if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(status).toBe(200);
        expect(await paidCount(id)).toBe(1);
        expect(runs()).toBe(2);
      });

      it("answers a concurrent duplicate 409 at once, not after the first delivery's handler ends", async () => {
        const id = order("duplicate");
        let entered!: () => void;
        const inside = new Promise<void>((resolve) => {
          entered = resolve;
        });
        let release!: () => void;
        const hold = new Promise<void>((resolve) => {
          release = resolve;
        });
        const { receiver, runs } = await shop({
          after: async () => {
            entered();
            await hold;
          },
        });
        const first = receiver.handle(delivery(id));
        await inside; // the first delivery's transaction holds the event, its effect written
        const started = performance.now();
        const duplicate = await receiver.handle(delivery(id));
        const waited = performance.now() - started;
        release();
        expect(duplicate.status).toBe(409);
        expect(waited).toBeLessThan(1_500);
        expect((await first).status).toBe(200);
        expect((await receiver.handle(delivery(id))).status).toBe(200);
        expect(await paidCount(id)).toBe(1);
        expect(runs()).toBe(1);
      });

      it("answers a handler past handlerTimeoutMs 500; nothing it wrote commits; the library's pool stays whole", async () => {
        const size = fixture.poolSize;
        const ids = Array.from({ length: size }, (_, i) => order(`late-${i}`));
        let release!: () => void;
        const hold = new Promise<void>((resolve) => {
          release = resolve;
        });
        let timedOut = true;
        const lateWrites: Promise<"committed" | "refused">[] = [];
        const { receiver, runs } = await shop({
          idempotency: { handlerTimeoutMs: 300 },
          after: async (tx, id, signal) => {
            if (!timedOut) return;
            await hold;
            expect(signal.aborted).toBe(true);
            // Written again after the limit, through the same transaction object: must never commit.
            const late = fixture.markPaid(tx, id).then(
              () => "committed" as const,
              () => "refused" as const,
            );
            lateWrites.push(late);
            await late;
          },
        });
        // As many stuck deliveries as the pool has connections: a connection not given back whole would starve it.
        const started = performance.now();
        const answers = await Promise.all(ids.map((id) => receiver.handle(delivery(id))));
        expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 500));
        expect(performance.now() - started).toBeLessThan(3_000);
        for (const id of ids) expect(await paidCount(id)).toBe(0);
        timedOut = false;
        release();
        await vi.waitFor(() => expect(lateWrites).toHaveLength(size), { timeout: 5_000, interval: 20 });
        expect(await Promise.all(lateWrites)).toEqual(ids.map(() => "refused"));
        for (const id of ids) expect(await paidCount(id)).toBe(0);
        // The pool serves twice its size of concurrent deliveries again, and the retries apply each event once.
        const fresh = Array.from({ length: 2 * size }, (_, i) => order(`after-late-${i}`));
        const again = await Promise.all([...ids, ...fresh].map((id) => receiver.handle(delivery(id))));
        expect(again.map((answer) => answer.status)).toEqual([...ids, ...fresh].map(() => 200));
        for (const id of [...ids, ...fresh]) expect(await paidCount(id)).toBe(1);
        expect(runs()).toBe(2 * size + 2 * size);
      });

      it("answers 503 and runs no handler when the database is unreachable, transactional or not", async () => {
        const store = fixture.unreachableStore();
        let ran = false;
        for (const transactional of [true, false]) {
          const receiver = createWebhookReceiver({
            source: "qris",
            verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
            idempotency: { store, transactional, operationTimeoutMs: 2_000 },
            logger: quiet,
          }).onAny(() => {
            ran = true;
          });
          expect((await receiver.handle(delivery(order(`unreachable-${transactional}`)))).status).toBe(503);
        }
        expect(ran).toBe(false);
      });
    });

    describe("the delivery journal, given a connection of its own", () => {
      /** A receiver whose handler marks the order paid, journalling into `journal`, its commits watched. */
      async function journalledShop(journal: ContractJournal, watch: (store: BoundStore<Tx>) => BoundStore<Tx>) {
        const store = fixture.store(table());
        await store.ensureSchema();
        const receiver = createWebhookReceiver({
          source: "qris",
          verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
          idempotency: { store: watch(store), transactional: true },
          logger: quiet,
          journal,
        }).on("payment.success", async (event, ctx) => {
          await fixture.markPaid(ctx.transaction, String(event.data.qris_history_id));
        });
        return receiver;
      }

      const countInside = (sql: TransactionSql, journalTable: string, id: string) =>
        sql.query(
          `SELECT COUNT(*) AS n FROM ${journalTable} WHERE qris_history_id = ${sql.dialect === "postgres" ? "$1" : "?"}`,
          [id],
        );

      it("writes the processed entry in the delivery's transaction: seen inside it before COMMIT, outside only after", async () => {
        const id = order("journal-commit");
        const journalTable = `${table()}_journal`;
        const journal = await fixture.journal(journalTable);
        const seen: { inside: number; outside: number }[] = [];
        const receiver = await journalledShop(journal, (store) =>
          watchedCommits(store, async (sql) => {
            await journal.flush();
            const inside = Number((await countInside(sql, journalTable, id)).rows[0]?.n);
            seen.push({ inside, outside: (await journal.search({ reference: id })).length });
          }),
        );
        expect((await receiver.handle(delivery(id))).status).toBe(200);
        // In the transaction (through the store's connection), not yet committed where the journal's own pool reads.
        expect(seen).toEqual([{ inside: 1, outside: 0 }]);
        await journal.flush();
        expect((await journal.search({ reference: id })).map((entry) => [entry.outcome, entry.httpStatus])).toEqual([
          ["processed", 200],
        ]);
        expect(await paidCount(id)).toBe(1);
        await journal.close();
      });

      it("leaves neither the effect nor the processed entry when the COMMIT is lost; the entry says failed", async () => {
        const id = order("journal-lost");
        const journal = await fixture.journal(`${table()}_journal`);
        const receiver = await journalledShop(journal, (store) => watchedCommits(store, async () => {}, true));
        expect((await receiver.handle(delivery(id))).status).toBe(500);
        await vi.waitFor(
          async () => {
            await journal.flush();
            expect((await journal.search({ reference: id })).map((entry) => entry.outcome)).toEqual(["failed"]);
          },
          { timeout: 3_000, interval: 20 },
        );
        expect(await paidCount(id)).toBe(0);
        await journal.close();
      });
    });

    describe("non-transactional receiver through the same binding", () => {
      it("claims, runs the handler once and records the completion through the library's own pool", async () => {
        const id = order("plain");
        const store = fixture.store(table());
        await store.ensureSchema();
        let runs = 0;
        const receiver = createWebhookReceiver({
          source: "qris",
          verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
          idempotency: { store },
          logger: quiet,
        }).on("payment.success", () => {
          runs++;
        });
        expect((await receiver.handle(delivery(id))).status).toBe(200);
        expect((await receiver.handle(delivery(id))).status).toBe(200);
        expect(runs).toBe(1);
      });
    });

    describe("the shared store contract through the binding", () => {
      storeContract(() => {
        const store = fixture.store(table());
        const ready = store.ensureSchema();
        return {
          claim: async (...args) => {
            await ready;
            return store.claim(...args);
          },
          complete: async (...args) => {
            await ready;
            return store.complete(...args);
          },
          release: async (...args) => {
            await ready;
            return store.release(...args);
          },
        };
      });
    });
  });
}
