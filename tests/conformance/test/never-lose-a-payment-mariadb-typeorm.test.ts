// The never-lose campaign (test/support/never-lose-campaign.ts) on MariaDB through TypeORM 1.1 (type "mysql", over
// mysql2; issue 28): each app instance has its own DataSource and MysqlIdempotencyStore on typeormBinding, and the
// handler writes in TypeORM's idiom on the EntityManager it gets as `ctx.transaction`. The faults are those of the
// mysql2 variant (never-lose-a-payment-mariadb.test.ts): `mariadbd` SIGKILLed mid-flight twice (restarted at once,
// then 30 minutes later), single connections killed between effect and commit (their id read through `manager.query`).
import { MysqlIdempotencyStore } from "@kirimbayar/core/mysql";
import { typeormBinding } from "@kirimbayar/core/typeorm";
import { startMariaDbServer, TEST_DATABASE, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import type mysql from "mysql2/promise";
import { DataSource, type EntityManager, EntitySchema } from "typeorm";
import { afterAll, beforeAll, it } from "vitest";
import { type CampaignDatabase, campaignTitle, runNeverLoseCampaign } from "./support/never-lose-campaign.js";
import { CAMPAIGN_STORE_TABLE, mariaDbCampaignParts, mariaDbPool } from "./support/never-lose-mariadb.js";

interface Order {
  historyId: string;
  amount: number;
  paidCount: number;
}

const OrderEntity = new EntitySchema<Order>({
  name: "Order",
  tableName: "orders",
  columns: {
    historyId: { name: "history_id", type: String, primary: true },
    amount: { type: Number },
    paidCount: { name: "paid_count", type: Number, default: 0 },
  },
});

let server: TestMariaDbServer;
let admin: mysql.Pool;
const dataSources: DataSource[] = [];

beforeAll(async () => {
  server = await startMariaDbServer();
  admin = mariaDbPool(server, 2);
}, 60_000);

afterAll(async () => {
  await Promise.all(dataSources.map((dataSource) => dataSource.destroy().catch(() => {})));
  await admin?.end().catch(() => {});
  await server?.destroy();
});

function throughTypeorm(): CampaignDatabase<EntityManager> {
  const parts = mariaDbCampaignParts(server, admin);
  return {
    ...parts,
    label: "mariadb-typeorm",
    handlerTimeoutMs: 1_000,
    instanceStore: async () => {
      const dataSource = await new DataSource({
        type: "mysql",
        host: "127.0.0.1",
        port: server.port,
        username: "root",
        database: TEST_DATABASE,
        entities: [OrderEntity],
        poolSize: 5,
        connectTimeout: 1_000,
        logging: false,
      }).initialize();
      dataSources.push(dataSource);
      return new MysqlIdempotencyStore({ binding: typeormBinding(dataSource), table: CAMPAIGN_STORE_TABLE });
    },
    markPaid: (manager, id) => manager.getRepository(OrderEntity).increment({ historyId: id }, "paidCount", 1),
    killBackend: async (manager) => {
      const [row] = (await manager.query("SELECT CONNECTION_ID() AS id")) as { id: number }[];
      await parts.kill(row?.id);
    },
  };
}

it(campaignTitle({ outage: "crash-mid-flight" }), () => runNeverLoseCampaign(throughTypeorm()), 600_000);
