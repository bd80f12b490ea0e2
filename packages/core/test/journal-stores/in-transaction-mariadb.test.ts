// A transactional delivery's journal entry commits with its effect on a real MariaDB, whatever connection the journal
// was given: the app of issue 38 (`MysqlDeliveryJournal({ pool })` beside a TypeORM-bound store), where MariaDB's
// general log showed the entry inserted on another connection before the COMMIT. The general log (as a table) must now
// show the entry's INSERT on the connection of the handler's own write, between it and that connection's COMMIT; the
// entry is seen inside the transaction before its COMMIT and outside only after; a lost COMMIT takes it with the effect.
import { startMariaDbServer, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import mysql from "mysql2/promise";
import { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { MysqlDeliveryJournal, MysqlIdempotencyStore } from "../../src/mysql.js";
import { typeormBinding } from "../../src/typeorm.js";
import { createWebhookReceiver, type TransactionSql, tokenVerifier } from "../../src/webhooks.js";
import { type WatchableStore, watchedCommits } from "../support/watched-commits.js";
import { qrisSuccess, webhookRequest } from "../support/webhook-requests.js";

const TOKEN = "in-transaction-token";
const quiet = { warn: () => {}, error: () => {} };
let server: TestMariaDbServer;
let storePool: mysql.Pool;
let journalPool: mysql.Pool;
let dataSource: DataSource;
let shops = 0;

beforeAll(async () => {
  server = await startMariaDbServer();
  storePool = mysql.createPool({ uri: server.url, connectionLimit: 3 });
  journalPool = mysql.createPool({ uri: server.url, connectionLimit: 2 });
  dataSource = new DataSource({ type: "mysql", url: server.url, poolSize: 3 });
  await dataSource.initialize();
  // Every statement of every connection, in a table the test can read (the log the issue was found with).
  await storePool.query("SET GLOBAL log_output = 'TABLE'");
  await storePool.query("SET GLOBAL general_log = 'ON'");
}, 90_000);

afterAll(async () => {
  await storePool?.query("SET GLOBAL general_log = 'OFF'");
  await dataSource?.destroy();
  await journalPool?.end();
  await storePool?.end();
  await server?.destroy();
});

/** What MariaDB's general log says one connection did, in order. */
async function logOf(thread: number): Promise<{ command: string; argument: string }[]> {
  const [rows] = await storePool.query(
    "SELECT command_type AS command, CONVERT(argument USING utf8mb4) AS argument FROM mysql.general_log WHERE thread_id = ?",
    [thread],
  );
  return rows as { command: string; argument: string }[];
}

/** The connection that inserted into `table`, per the general log. */
async function insertersOf(table: string): Promise<number[]> {
  const [rows] = await storePool.query(
    "SELECT DISTINCT thread_id AS thread FROM mysql.general_log WHERE command_type IN ('Query', 'Execute') AND CONVERT(argument USING utf8mb4) LIKE ?",
    [`INSERT INTO \`${table}\`%`],
  );
  return (rows as { thread: number }[]).map((row) => Number(row.thread));
}

interface Setup {
  store(table: string): WatchableStore<unknown>;
  journal(table: string): MysqlDeliveryJournal<unknown>;
}

const setups: Record<string, () => Setup> = {
  "a TypeORM-bound store, MysqlDeliveryJournal({ pool }) (the app of issue 38)": () => ({
    store: (table) => new MysqlIdempotencyStore({ binding: typeormBinding(dataSource), table }),
    journal: (table) => new MysqlDeliveryJournal({ pool: journalPool, table }),
  }),
  "a mysql2 pool store, the journal over another mysql2 pool": () => ({
    store: (table) => new MysqlIdempotencyStore({ pool: storePool, table }),
    journal: (table) => new MysqlDeliveryJournal({ pool: journalPool, table }),
  }),
  "a mysql2 pool store, the journal over a TypeORM binding": () => ({
    store: (table) => new MysqlIdempotencyStore({ pool: storePool, table }),
    journal: (table) => new MysqlDeliveryJournal({ binding: typeormBinding(dataSource), table }),
  }),
};

/** A transactional QR receiver whose handler records the connection it wrote on, journalling into its own table. */
async function shop(setup: Setup, loseCommit = false) {
  const n = shops++;
  await storePool.query(`CREATE TABLE orders_${n} (history_id varchar(100) PRIMARY KEY, connection_id bigint)`);
  const store = setup.store(`events_${n}`);
  await store.ensureSchema();
  const journal = setup.journal(`journal_${n}`);
  await journal.ensureSchema();
  const seen: { inside: number; outside: number }[] = [];
  const watched = watchedCommits(
    store,
    async (sql: TransactionSql) => {
      const inside = await sql.query(`SELECT COUNT(*) AS n FROM journal_${n}`, []);
      seen.push({ inside: Number(inside.rows[0]?.n), outside: (await journal.search({ limit: 10 })).length });
    },
    loseCommit,
  );
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    idempotency: { store: watched, transactional: true },
    logger: quiet,
    journal,
  }).on("payment.success", async (event, ctx) => {
    // The mysql2 connection or TypeORM's EntityManager holding the transaction: both take query(sql, values).
    await (ctx.transaction as { query(sql: string, values: unknown[]): Promise<unknown> }).query(
      `INSERT INTO orders_${n} SELECT ?, CONNECTION_ID()`,
      [String(event.data.qris_history_id)],
    );
  });
  const deliver = (id: string) =>
    receiver.handle(
      webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) }),
    );
  const orders = async () =>
    (await storePool.query(`SELECT history_id, connection_id FROM orders_${n}`))[0] as {
      history_id: string;
      connection_id: number;
    }[];
  return { journal, deliver, seen, orders, table: `journal_${n}` };
}

describe.each(Object.keys(setups))("the journal's entry in the delivery's transaction: %s", (name) => {
  const setup = () => (setups[name] as () => Setup)();

  it("is inserted on the handler's connection before its COMMIT, and seen outside only after", async () => {
    const { journal, deliver, seen, orders, table } = await shop(setup());
    expect((await deliver("h-1")).status).toBe(200);
    const [effect] = await orders();
    const handlerConnection = Number(effect?.connection_id);
    // MariaDB's general log: the one INSERT into the journal table came from the handler's connection, after the
    // handler's write and before that connection's COMMIT.
    expect(await insertersOf(table)).toEqual([handlerConnection]);
    const log = (await logOf(handlerConnection)).map(({ command, argument }) => `${command} ${argument}`);
    const effectAt = log.findIndex((line) => /^(Query|Execute) INSERT INTO orders_\d+ SELECT/.test(line));
    const entryAt = log.findIndex((line) => /^(Query|Execute) INSERT INTO `journal_\d+`/.test(line));
    const commitAt = log.findIndex((line, index) => index > entryAt && /^Query COMMIT/i.test(line));
    expect(effectAt).toBeGreaterThanOrEqual(0);
    expect(entryAt).toBeGreaterThan(effectAt);
    expect(commitAt).toBeGreaterThan(entryAt);
    expect(seen).toEqual([{ inside: 1, outside: 0 }]);
    expect((await journal.search({ reference: "h-1" })).map((entry) => entry.outcome)).toEqual(["processed"]);
    await journal.close();
  });

  it("goes with a lost COMMIT: no effect, no processed entry, the delivery journalled as failed", async () => {
    const { journal, deliver, orders } = await shop(setup(), true);
    expect((await deliver("h-2")).status).toBe(500);
    await vi.waitFor(
      async () => {
        await journal.flush();
        expect((await journal.search({ reference: "h-2" })).map((entry) => entry.outcome)).toEqual(["failed"]);
      },
      { timeout: 3_000, interval: 20 },
    );
    expect(await orders()).toEqual([]);
    await journal.close();
  });
});
