// MysqlIdempotencyStore through a binding (the store's statements run by the app's own database library, the
// delivery's transaction opened by it): the shared transactional contract and store contract on a real MariaDB,
// through TypeORM 1.1 with its mysql2 driver (`type: "mysql"`). The handler writes in TypeORM's idiom, through the
// delivery's EntityManager.
import { startMariaDbServer, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import mysql from "mysql2/promise";
import { DataSource, type EntityManager, EntitySchema } from "typeorm";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from "vitest";
import { MysqlIdempotencyStore } from "../src/mysql.js";
import { typeormBinding } from "../src/typeorm.js";
import { createWebhookReceiver, tokenVerifier } from "../src/webhooks.js";
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

transactionalContract<EntityManager>(
  "MySQL store through the TypeORM binding (TypeORM 1.1, mysql2, MariaDB)",
  async () => {
    const poolSize = 3;
    const dataSource = await dataSourceOn(server.port, poolSize);
    // Reached through a relay that is cut once it is initialised: a database that went away.
    const relay = await startTcpProxy(server.port);
    const unreachable = await dataSourceOn(relay.port, 1);
    await relay.cut();
    return {
      poolSize,
      store: (table) => new MysqlIdempotencyStore({ binding: typeormBinding(dataSource), table }),
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
      unreachableStore: () => new MysqlIdempotencyStore({ binding: typeormBinding(unreachable) }),
      close: async () => {
        await dataSource.destroy();
        await unreachable.destroy().catch(() => {});
      },
    };
  },
);

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
