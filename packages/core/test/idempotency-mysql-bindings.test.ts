// MysqlIdempotencyStore through a binding (the store's statements run by the app's own database library, the
// delivery's transaction opened by it): the shared transactional contract and store contract on a real MariaDB,
// through TypeORM 1.1 with its mysql2 driver (`type: "mysql"`). The handler writes in TypeORM's idiom, through the
// delivery's EntityManager.
import { startMariaDbServer, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import mysql from "mysql2/promise";
import { DataSource, type EntityManager, EntitySchema } from "typeorm";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from "vitest";
import type { SqlBinding } from "../src/idempotency/sql/binding.js";
import { MysqlIdempotencyStore } from "../src/mysql.js";
import { typeormBinding } from "../src/typeorm.js";
import { createWebhookReceiver, tokenVerifier } from "../src/webhooks.js";
import { mysqlJournalOnOwnPool } from "./support/own-journal.js";
import { startTcpProxy } from "./support/tcp-proxy.js";
import { transactionalContract } from "./support/transactional-contract.js";
import { qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

interface Order {
  historyId: string;
  paidCount: number;
}

const OrderEntity = new EntitySchema<Order>({
  name: "Order",
  tableName: "orders",
  columns: {
    historyId: { name: "history_id", type: String, primary: true, length: 100 },
    paidCount: { name: "paid_count", type: Number, default: 0 },
  },
});

/** The handler's effect in TypeORM's idiom: through a repository of the delivery's EntityManager. */
async function markPaid(manager: EntityManager, id: string): Promise<void> {
  const orders = manager.getRepository(OrderEntity);
  if (await orders.existsBy({ historyId: id })) await orders.increment({ historyId: id }, "paidCount", 1);
  else await orders.insert({ historyId: id, paidCount: 1 });
}

let server: TestMariaDbServer;
let admin: mysql.Pool;

beforeAll(async () => {
  server = await startMariaDbServer();
  admin = mysql.createPool({ uri: server.url, connectionLimit: 2 });
  await admin.query(
    "CREATE TABLE orders (history_id VARCHAR(100) PRIMARY KEY, paid_count INT NOT NULL DEFAULT 0) ENGINE=InnoDB",
  );
}, 60_000);

afterAll(async () => {
  await admin?.end();
  await server?.destroy();
});

async function dataSourceOn(port: number, poolSize: number): Promise<DataSource> {
  const dataSource = new DataSource({
    type: "mysql",
    host: "127.0.0.1",
    port,
    username: "root",
    database: "kirimbayar",
    entities: [OrderEntity],
    poolSize,
    connectTimeout: 1_000,
    logging: false,
  });
  return dataSource.initialize();
}

// Both ways to tell a concurrent duplicate: the named lock (the default through a binding) and MariaDB's statements
// that do not wait (TypeORM passes mysql2's lock error on as its QueryFailedError's driverError).
for (const locks of ["named-lock", "no-wait"] as const) {
  transactionalContract<EntityManager>(
    `MySQL store through the TypeORM binding (TypeORM 1.1, mysql2, MariaDB), ${locks}`,
    async () => {
      const poolSize = 3;
      const dataSource = await dataSourceOn(server.port, poolSize);
      // Reached through a relay that is cut once it is initialised: a database that went away.
      const relay = await startTcpProxy(server.port);
      const unreachable = await dataSourceOn(relay.port, 1);
      await relay.cut();
      return {
        poolSize,
        store: (table) =>
          new MysqlIdempotencyStore({ binding: typeormBinding(dataSource), table, transactionalLocks: locks }),
        markPaid,
        paidCount: async (id) =>
          (await dataSource.getRepository(OrderEntity).findOneBy({ historyId: id }))?.paidCount ?? 0,
        killBackend: async (manager) => {
          const [row] = (await manager.query("SELECT CONNECTION_ID() AS id")) as { id: number }[];
          await admin.query(`KILL ${Number(row?.id)}`);
          await vi.waitFor(
            async () => {
              const [rows] = await admin.query("SELECT 1 FROM information_schema.PROCESSLIST WHERE ID = ?", [row?.id]);
              expect(rows).toHaveLength(0);
            },
            { timeout: 5_000, interval: 20 },
          );
        },
        unreachableStore: () =>
          new MysqlIdempotencyStore({ binding: typeormBinding(unreachable), transactionalLocks: locks }),
        // The app of issue 38: MysqlDeliveryJournal({ pool }) beside the TypeORM-bound store.
        journal: (table) => mysqlJournalOnOwnPool({ uri: server.url }, table),
        close: async () => {
          await dataSource.destroy();
          await unreachable.destroy().catch(() => {});
        },
      };
    },
  );
}

const TOKEN = "mysql-binding-token";
const delivery = (id: string) =>
  webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });

describe("MySQL store through the TypeORM binding: the shop's handler", () => {
  it("gets the delivery's EntityManager, typed; its writes commit with the event's record", async () => {
    const dataSource = await dataSourceOn(server.port, 2);
    try {
      const store = new MysqlIdempotencyStore({ binding: typeormBinding(dataSource), table: "typeorm_idiom" });
      await store.ensureSchema();
      const receiver = createWebhookReceiver({
        source: "qris",
        verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
        idempotency: { store, transactional: true },
        logger: { warn: () => {}, error: () => {} },
      }).on("payment.success", async (event, ctx) => {
        expectTypeOf(ctx.transaction).toEqualTypeOf<EntityManager>();
        await ctx.transaction
          .getRepository(OrderEntity)
          .insert({ historyId: String(event.data.qris_history_id), paidCount: 1 });
      });
      const id = "idiom-1";
      expect((await receiver.handle(delivery(id))).status).toBe(200);
      expect((await receiver.handle(delivery(id))).status).toBe(200);
      expect(await dataSource.getRepository(OrderEntity).findOneBy({ historyId: id })).toEqual({
        historyId: id,
        paidCount: 1,
      });
      const [rows] = await admin.query("SELECT `key`, state FROM typeorm_idiom");
      expect(rows).toEqual([{ key: `qris:payment.success:${id}`, state: "completed" }]);
    } finally {
      await dataSource.destroy();
    }
  });
});

/**
 * A binding over a mysql2 pool whose abandon() closes nothing: the library rolls back and keeps the connection, as
 * Prisma does. The event's lock must still be freed, or the pooled connection would hold it for good.
 */
function keepingBinding(pool: mysql.Pool): SqlBinding<mysql.PoolConnection> {
  return {
    library: "mysql2 (keeps its connections)",
    async transaction(work) {
      const connection = await pool.getConnection();
      try {
        await connection.beginTransaction();
        await work(connection);
        await connection.commit();
      } catch (error) {
        await connection.rollback().catch(() => {});
        throw error;
      } finally {
        connection.release();
      }
    },
    async query(sql, params, tx) {
      const [result] = await (tx ?? pool).execute(sql, [...params] as (string | number)[]);
      if (Array.isArray(result)) return { rows: result as Record<string, unknown>[] };
      return { rows: [], affectedRows: (result as mysql.ResultSetHeader).affectedRows };
    },
    abandon() {},
  };
}

describe("MySQL store through a binding that keeps the connection of an abandoned transaction", () => {
  it("frees the event's lock before the rollback, so the pooled connection does not keep it", async () => {
    const pool = mysql.createPool({ uri: server.url, connectionLimit: 2 });
    try {
      const table = "keeping_events";
      const store = new MysqlIdempotencyStore({ binding: keepingBinding(pool), table });
      await store.ensureSchema();
      let release!: () => void;
      const hold = new Promise<void>((resolve) => {
        release = resolve;
      });
      let first = true;
      const receiver = createWebhookReceiver({
        source: "qris",
        verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
        idempotency: { store, transactional: true, handlerTimeoutMs: 200 },
        logger: { warn: () => {}, error: () => {} },
      }).on("payment.success", async (event, ctx) => {
        await ctx.transaction.execute(
          "INSERT INTO orders (history_id, paid_count) VALUES (?, 1) ON DUPLICATE KEY UPDATE paid_count = paid_count + 1",
          [String(event.data.qris_history_id)],
        );
        if (first) {
          first = false;
          await hold;
        }
      });
      const key = "qris:payment.success:keep-1";
      const lockFree = async () => {
        const [rows] = await admin.query(
          "SELECT IS_FREE_LOCK(CONCAT('kirimbayar:', LEFT(SHA2(CONCAT(DATABASE(), '.', ?, ':', ?), 256), 52))) AS free",
          [table, key],
        );
        return Number((rows as { free: number }[])[0]?.free);
      };
      expect((await receiver.handle(delivery("keep-1"))).status).toBe(500);
      // Both of the pool's connections are alive, neither holds the event's lock, and nothing was committed.
      await vi.waitFor(async () => expect(await lockFree()).toBe(1), { timeout: 3_000, interval: 20 });
      const [orders] = await admin.query("SELECT paid_count FROM orders WHERE history_id = 'keep-1'");
      expect(orders).toEqual([]);
      release();
      expect((await receiver.handle(delivery("keep-1"))).status).toBe(200);
      const [after] = await admin.query("SELECT paid_count FROM orders WHERE history_id = 'keep-1'");
      expect(after).toEqual([{ paid_count: 1 }]);
    } finally {
      await pool.end();
    }
  });
});
