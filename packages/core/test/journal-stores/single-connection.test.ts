// The idempotency store and the delivery journal on ONE connection (a `pg` Client, PGlite, a `mysql2` Connection):
// the set-up of tests, local development and single-process apps. A transactional delivery holds that connection
// from BEGIN to COMMIT; the journal's batches (entries of duplicates, failures and non-transactional deliveries,
// written after their answers) must wait for it, not join it: a batch sent in the middle of another delivery's
// transaction is rolled back with it (found by issue 37's pooler work: 126-127 of 130 entries kept; 120-128 here before
// a connection had one turn for all its users). Each delivery answered must have its one entry afterwards.
import { PGlite } from "@electric-sql/pglite";
import { startMariaDbServer, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeliveryJournal } from "../../src/journal.js";
import { MysqlDeliveryJournal, MysqlIdempotencyStore } from "../../src/mysql.js";
import { PostgresDeliveryJournal, PostgresIdempotencyStore } from "../../src/postgres.js";
import {
  createWebhookReceiver,
  type IdempotencyStore,
  type TransactionalIdempotencyStore,
  tokenVerifier,
} from "../../src/webhooks.js";
import { qrisSuccess, webhookRequest } from "../support/webhook-requests.js";

const TOKEN = "single-connection-token";
const quiet = { warn: () => {}, error: () => {} };
let postgres: TestPostgresServer;
let mariadb: TestMariaDbServer;
let pgClient: pg.Client;
let pglite: PGlite;
let mysqlConnection: mysql.Connection;
/** A second `mysql2/promise` connection: its `connection` is the callback-style one it wraps. */
let wrappedConnection: mysql.Connection;
let shops = 0;

beforeAll(async () => {
  [postgres, mariadb] = await Promise.all([startPostgresServer(), startMariaDbServer()]);
  pgClient = new pg.Client({ connectionString: postgres.url });
  pgClient.on("error", () => {});
  await pgClient.connect();
  mysqlConnection = await mysql.createConnection({ uri: mariadb.url });
  wrappedConnection = await mysql.createConnection({ uri: mariadb.url });
  // Ready before the tests: its start compiles PostgreSQL's WebAssembly on this thread for seconds.
  pglite = new PGlite();
  await pglite.waitReady;
}, 90_000);

afterAll(async () => {
  await pglite?.close();
  await wrappedConnection?.end();
  await mysqlConnection?.end();
  await pgClient?.end();
  await Promise.all([postgres?.destroy(), mariadb?.destroy()]);
});

type Runner = { query(sql: string, params?: unknown[]): PromiseLike<unknown> };
type Store = IdempotencyStore & TransactionalIdempotencyStore<unknown> & { ensureSchema(): Promise<void> };
type Journal = DeliveryJournal & { ensureSchema(): Promise<void>; flush(): Promise<void>; close(): Promise<void> };

interface Setup {
  /** Where the test creates and reads its tables (the same connection: it takes no part in the turns). */
  readonly admin: Runner;
  store(table: string): Store;
  journal(table: string): Journal;
  /** The handler's write, through the delivery's transaction (`$1`/`?` by dialect). */
  readonly insertOrder: string;
  readonly orderTable: (table: string) => string;
}

const rowsOf = (result: unknown): Record<string, unknown>[] =>
  Array.isArray(result) ? (Array.isArray(result[0]) ? result[0] : result) : (result as { rows: [] }).rows;

const onPostgres = (admin: Runner): Pick<Setup, "admin" | "insertOrder" | "orderTable"> => ({
  admin,
  insertOrder: "INSERT INTO orders_$n (history_id) VALUES ($1)",
  orderTable: (table) => `CREATE TABLE ${table} (history_id text PRIMARY KEY)`,
});
const onMysql = (admin: Runner): Pick<Setup, "admin" | "insertOrder" | "orderTable"> => ({
  admin,
  insertOrder: "INSERT INTO orders_$n (history_id) VALUES (?)",
  orderTable: (table) => `CREATE TABLE ${table} (history_id varchar(100) PRIMARY KEY)`,
});

// Short batches: a batch goes out within milliseconds of its first entry, while other deliveries' transactions are
// open on the connection (their handlers wait a little), so a batch that took no turn would almost surely join one.
const batching = { flushIntervalMs: 2 };

const setups: Record<string, () => Setup> = {
  "PostgresIdempotencyStore({ client }) + PostgresDeliveryJournal({ client }), one pg Client": () => ({
    ...onPostgres({ query: (sql, params) => pgClient.query(sql, params) }),
    store: (table) => new PostgresIdempotencyStore({ client: pgClient, table }),
    journal: (table) => new PostgresDeliveryJournal({ client: pgClient, table, batching }),
  }),
  "the same, prepared statements on (a pg Client)": () => ({
    ...onPostgres({ query: (sql, params) => pgClient.query(sql, params) }),
    store: (table) => new PostgresIdempotencyStore({ client: pgClient, table, preparedStatements: true }),
    journal: (table) => new PostgresDeliveryJournal({ client: pgClient, table, batching, preparedStatements: true }),
  }),
  "PostgresIdempotencyStore({ client }) + PostgresDeliveryJournal({ client }), one PGlite": () => ({
    ...onPostgres({ query: (sql, params) => pglite.query(sql, params) }),
    store: (table) => new PostgresIdempotencyStore({ client: pglite, table }),
    journal: (table) => new PostgresDeliveryJournal({ client: pglite, table, batching }),
  }),
  "MysqlIdempotencyStore({ connection }) + MysqlDeliveryJournal({ connection }), one mysql2 Connection": () => ({
    ...onMysql({ query: (sql, params) => mysqlConnection.query(sql, params) }),
    store: (table) => new MysqlIdempotencyStore({ connection: mysqlConnection, table }),
    journal: (table) => new MysqlDeliveryJournal({ connection: mysqlConnection, table, batching }),
  }),
  "the same, the store given the callback-style connection and the journal its promise() wrapper": () => {
    const callbackStyle = (wrappedConnection as unknown as { connection: mysql.Connection }).connection;
    return {
      ...onMysql({ query: (sql, params) => wrappedConnection.query(sql, params) }),
      store: (table) => new MysqlIdempotencyStore({ connection: callbackStyle as unknown as mysql.Connection, table }),
      journal: (table) => new MysqlDeliveryJournal({ connection: wrappedConnection, table, batching }),
    };
  },
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Two receivers on the one store and journal: transactional QR payments (every fifth event's handler fails after its
 * write, rolling its transaction back) and non-transactional QR expiries, each event delivered once or twice at once.
 */
async function shop(setup: Setup) {
  const n = shops++;
  const orders = `orders_${n}`;
  await setup.admin.query(setup.orderTable(orders));
  const store = setup.store(`events_${n}`);
  await store.ensureSchema();
  const journal = setup.journal(`journal_${n}`);
  await journal.ensureSchema();
  const failing = (id: string) => Number(id.split("-")[1]) % 5 === 0;
  const common = { source: "qris" as const, verify: [tokenVerifier({ secrets: TOKEN, in: "query" })], logger: quiet };
  const transactional = createWebhookReceiver({
    ...common,
    idempotency: { store, transactional: true },
    journal,
  }).on("payment.success", async (event, ctx) => {
    const id = String(event.data.qris_history_id);
    await (ctx.transaction as Runner).query(setup.insertOrder.replace("$n", String(n)), [id]);
    // Long enough for other deliveries' entries to be batched and sent while this transaction is open.
    await sleep(4);
    if (failing(id)) throw new Error(`handler of ${id} failed`);
  });
  const plain = createWebhookReceiver({ ...common, idempotency: { store }, journal }).on("payment.expired", () =>
    sleep(1),
  );
  const deliver = (id: string) => {
    const paid = id.startsWith("paid");
    const body = paid
      ? qrisSuccess({ qris_history_id: id })
      : {
          event: "payment.expired",
          timestamp: "2026-03-01T03:15:00Z",
          data: { qris_history_id: id, status: "expired" },
        };
    return (paid ? transactional : plain).handle(
      webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(body) }),
    );
  };
  const effects = async () =>
    rowsOf(await setup.admin.query(`SELECT history_id FROM ${orders} ORDER BY history_id`)).map((row) =>
      String(row.history_id),
    );
  return { journal, deliver, effects, failing };
}

describe.each(Object.keys(setups))("the store and the journal on one connection: %s", (name) => {
  it("keeps every delivery's entry: 130 deliveries (duplicates, failing handlers, non-transactional ones)", async () => {
    const setup = (setups[name] as () => Setup)();
    const { journal, deliver, effects, failing } = await shop(setup);
    // 100 events: 80 payments (transactional), 20 expiries (not), every third delivered twice at once: 130.
    const ids = Array.from({ length: 100 }, (_, i) => (i < 80 ? `paid-${i + 1}` : `expired-${i + 1}`));
    const deliveries = ids.flatMap((id, i) => (i % 3 === 0 && i < 90 ? [id, id] : [id]));
    expect(deliveries).toHaveLength(130);
    const answers: { id: string; status: number }[] = [];
    // Ten at a time, as a provider's retries and a busy hour bring them.
    for (let at = 0; at < deliveries.length; at += 10) {
      const group = deliveries.slice(at, at + 10);
      const statuses = await Promise.all(group.map(async (id) => (await deliver(id)).status));
      group.forEach((id, i) => {
        answers.push({ id, status: statuses[i] as number });
      });
    }
    await journal.flush();
    const entries = await journal.search({ limit: 1_000 });
    const byId = (list: { id: string; status: number }[]) =>
      list.map(({ id, status }) => `${id} ${status}`).sort((a, b) => a.localeCompare(b));
    expect(
      byId(entries.map((entry) => ({ id: String(entry.references.qris_history_id), status: entry.httpStatus }))),
    ).toEqual(byId(answers));
    expect(entries).toHaveLength(130);
    // The failing handlers' writes were rolled back; every other payment's write committed once.
    const paid = ids.filter((id) => id.startsWith("paid"));
    expect(await effects()).toEqual(paid.filter((id) => !failing(id)).sort((a, b) => a.localeCompare(b)));
    // Each failing payment was answered 500 (its duplicate, if any, 409 while it ran or 500 when run after it).
    for (const id of paid.filter(failing)) {
      expect(
        answers.filter((answer) => answer.id === id).map(({ status }) => status),
        id,
      ).toContain(500);
    }
    // A duplicate meets its twin running (409) or done (200): which one depends on timing, so only the set is pinned.
    const statuses = new Set(answers.map(({ status }) => status));
    expect([...statuses].filter((status) => ![200, 409, 500].includes(status))).toEqual([]);
    expect(statuses).toContain(200);
    expect(statuses).toContain(500);
    await journal.close();
  });
});
