// The Prisma (@prisma/adapter-mariadb) and TypeORM (mysql2) bindings on a real MariaDB, through
// MysqlIdempotencyStore: every guarantee of transactional handlers and the shared store contract
// (test/support/transactional-contract.ts), each handler writing in its ORM's own idiom through ctx.transaction.

import { startMariaDbServer, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import { PrismaMariaDb } from "@prisma/adapter-mariadb";
import mysql from "mysql2/promise";
import { DataSource, type EntityManager, EntitySchema } from "typeorm";
import { afterAll, beforeAll, expect, vi } from "vitest";
import { MysqlIdempotencyStore } from "../src/mysql.js";
import { type PrismaTransactionClient, prismaBinding } from "../src/prisma.js";
import { typeormBinding } from "../src/typeorm.js";
import { PrismaClient } from "./prisma/mysql/generated/client.js";
import { mysqlJournalOnOwnPool } from "./support/own-journal.js";
import { startTcpProxy } from "./support/tcp-proxy.js";
import { transactionalContract } from "./support/transactional-contract.js";

const POOL_SIZE = 3;

let server: TestMariaDbServer;
let admin: mysql.Pool;

beforeAll(async () => {
  server = await startMariaDbServer();
  admin = mysql.createPool({ host: "127.0.0.1", port: server.port, user: "root", database: "kirimbayar" });
  await admin.query(
    "CREATE TABLE orders (history_id varchar(100) PRIMARY KEY, paid_count int NOT NULL DEFAULT 0) ENGINE=InnoDB",
  );
}, 60_000);

afterAll(async () => {
  await admin?.end();
  await server?.destroy();
});

/** Kills MariaDB connection `id` and waits (bounded) until it is gone. */
async function kill(id: unknown): Promise<void> {
  await admin.query(`KILL ${Number(id)}`);
  await vi.waitFor(
    async () => {
      const [rows] = await admin.query("SELECT 1 FROM information_schema.PROCESSLIST WHERE ID = ?", [id]);
      expect(rows).toHaveLength(0);
    },
    { timeout: 5_000, interval: 20 },
  );
}

const prismaOn = (port: number, connectionLimit: number) =>
  new PrismaClient({
    adapter: new PrismaMariaDb({
      host: "127.0.0.1",
      port,
      user: "root",
      database: "kirimbayar",
      connectionLimit,
      connectTimeout: 1_000,
    }),
  });

transactionalContract<PrismaTransactionClient<PrismaClient>>(
  "Prisma binding (Prisma 7, @prisma/adapter-mariadb) on MariaDB",
  async () => {
    const prisma = prismaOn(server.port, POOL_SIZE);
    const unreachable = prismaOn(1, 1);
    return {
      poolSize: POOL_SIZE,
      store: (table) => new MysqlIdempotencyStore({ binding: prismaBinding(prisma), table }),
      markPaid: (tx, id) =>
        tx.order.upsert({
          where: { historyId: id },
          create: { historyId: id, paidCount: 1 },
          update: { paidCount: { increment: 1 } },
        }),
      paidCount: async (id) => (await prisma.order.findUnique({ where: { historyId: id } }))?.paidCount ?? 0,
      killBackend: async (tx) => {
        const [row] = await tx.$queryRawUnsafe<{ id: bigint | number }[]>("SELECT CONNECTION_ID() AS id");
        await kill(row?.id);
      },
      unreachableStore: () => new MysqlIdempotencyStore({ binding: prismaBinding(unreachable) }),
      journal: (table) => mysqlJournalOnOwnPool({ uri: server.url }, table),
      close: async () => {
        await prisma.$disconnect();
        await unreachable.$disconnect();
      },
    };
  },
);

interface Order {
  historyId: string;
  paidCount: number;
}

const OrderEntity = new EntitySchema<Order>({
  name: "Order",
  tableName: "orders",
  columns: {
    historyId: { name: "history_id", type: String, primary: true },
    paidCount: { name: "paid_count", type: Number, default: 0 },
  },
});

const dataSourceOn = (port: number, poolSize: number) =>
  new DataSource({
    type: "mysql",
    host: "127.0.0.1",
    port,
    username: "root",
    database: "kirimbayar",
    entities: [OrderEntity],
    poolSize,
    connectTimeout: 1_000,
    logging: false,
  }).initialize();

transactionalContract<EntityManager>("TypeORM binding (TypeORM 1.1, mysql2) on MariaDB", async () => {
  const dataSource = await dataSourceOn(server.port, POOL_SIZE);
  // Reached through a relay that is cut once it is initialised: a database that went away.
  const relay = await startTcpProxy(server.port);
  const unreachable = await dataSourceOn(relay.port, 1);
  await relay.cut();
  return {
    poolSize: POOL_SIZE,
    store: (table) => new MysqlIdempotencyStore({ binding: typeormBinding(dataSource), table }),
    markPaid: async (manager, id) => {
      const orders = manager.getRepository(OrderEntity);
      if (await orders.existsBy({ historyId: id })) await orders.increment({ historyId: id }, "paidCount", 1);
      else await orders.insert({ historyId: id, paidCount: 1 });
    },
    paidCount: async (id) =>
      Number((await dataSource.getRepository(OrderEntity).findOneBy({ historyId: id }))?.paidCount ?? 0),
    killBackend: async (manager) => {
      const [row] = (await manager.query("SELECT CONNECTION_ID() AS id")) as { id: number }[];
      await kill(row?.id);
    },
    unreachableStore: () => new MysqlIdempotencyStore({ binding: typeormBinding(unreachable) }),
    // The app of issue 38: MysqlDeliveryJournal({ pool }) beside the TypeORM-bound store.
    journal: (table) => mysqlJournalOnOwnPool({ uri: server.url }, table),
    close: async () => {
      await dataSource.destroy();
      await unreachable.destroy().catch(() => {});
    },
  };
});
