// pg-boss's inbox in the shop's own database: an event enqueued with the app's transaction exists only if that
// transaction commits.

import type { SqlBinding } from "@kirimbayar/core/postgres";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import PgBoss from "pg-boss";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPgBossInbox } from "../src/engines/pg-boss.js";

let server: TestPostgresServer;
let boss: PgBoss;
beforeAll(async () => {
  server = await startPostgresServer();
  boss = new PgBoss({ connectionString: server.url, max: 4 });
  boss.on("error", () => {});
  await boss.start();
}, 60_000);
afterAll(async () => {
  await boss?.stop({ graceful: false, wait: true, timeout: 2_000 }).catch(() => {});
  await server?.destroy();
});

const message = (id: string) => ({
  key: `qris:payment.success:${id}`,
  source: "qris" as const,
  body: JSON.stringify({
    event: "payment.success",
    timestamp: "2026-03-01T03:00:00Z",
    data: { qris_history_id: id, amount: 1 },
  }),
  receivedAt: Date.now(),
});

it("queues an event with the app's transaction: gone on rollback, there on commit", async () => {
  const inbox = await createPgBossInbox({ boss, name: "tx-inbox" });
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  const db = { executeSql: (text: string, values: unknown[]) => client.query(text, values) };
  try {
    await client.query("CREATE TABLE orders (id text PRIMARY KEY, paid boolean NOT NULL)");
    await client.query("BEGIN");
    await client.query("INSERT INTO orders VALUES ('o-1', true)");
    expect(await inbox.enqueueIn(db, message("rolled-back"))).toBe("queued");
    await client.query("ROLLBACK");
    expect((await inbox.stats()).waiting).toBe(0);

    await client.query("BEGIN");
    await client.query("INSERT INTO orders VALUES ('o-2', true)");
    expect(await inbox.enqueueIn(db, message("committed"))).toBe("queued");
    // Not visible to others before the commit.
    expect((await inbox.stats()).waiting).toBe(0);
    await client.query("COMMIT");
    expect((await inbox.stats()).waiting).toBe(1);
    // The same key again, in or out of a transaction, adds nothing.
    expect(await inbox.enqueueIn(db, message("committed"))).toBe("duplicate");
    await inbox.enqueue(message("committed")); // batched: "queued" either way
    expect((await inbox.stats()).waiting).toBe(1);
  } finally {
    await client.end();
  }
});

it("takes a database library's transaction object through its binding: gone on rollback, there on commit", async () => {
  // A binding as core's ORM bindings are (here over a pg Pool, whose transaction object is the lent client).
  const pool = new pg.Pool({ connectionString: server.url, max: 2 });
  const binding: SqlBinding<pg.PoolClient> = {
    library: "pg",
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await work(client);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      } finally {
        client.release();
      }
    },
    query: async (sql, params, tx) => ({ rows: (await (tx ?? pool).query(sql, [...params])).rows }),
    abandon: (tx) => tx.release(true),
  };
  const inbox = await createPgBossInbox({ boss, name: "binding-inbox", binding });
  try {
    await expect(
      binding.transaction(async (tx) => {
        expect(await inbox.enqueueIn(tx, message("bound-rolled-back"))).toBe("queued");
        throw new Error("the app's transaction fails after queueing");
      }),
    ).rejects.toThrow("fails after queueing");
    expect((await inbox.stats()).waiting).toBe(0);
    await binding.transaction(async (tx) => {
      expect(await inbox.enqueueIn(tx, message("bound-committed"))).toBe("queued");
      expect((await inbox.stats()).waiting).toBe(0); // not visible before the commit
    });
    expect((await inbox.stats()).waiting).toBe(1);
    // Without a binding, a transaction object that is not pg-boss's Db is refused with a clear error.
    const plain = await createPgBossInbox({ boss, name: "no-binding-inbox" });
    await expect(plain.enqueueIn({} as never, message("nowhere"))).rejects.toThrow(/binding of your database library/);
  } finally {
    await pool.end();
  }
});
