// The never-lose campaign (test/support/never-lose-campaign.ts) through TypeORM 1.1 on a real PostgreSQL (issue 27):
// each app instance has its own DataSource, its store reaches the database through typeormBinding, and the handler
// writes in TypeORM's idiom on the EntityManager it gets as `ctx.transaction` (`manager.getRepository(Order)
// .increment(...)`, typed, no cast). "Between effect and commit" is the transaction's backend terminated from
// outside, its pid read through `manager.query` in the handler.
import { PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { typeormBinding } from "@kirimbayar/core/typeorm";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import { DataSource, type EntityManager, EntitySchema } from "typeorm";
import { afterAll, beforeAll, it } from "vitest";
import { type CampaignDatabase, campaignTitle, runNeverLoseCampaign } from "./support/never-lose-campaign.js";
import { CAMPAIGN_STORE_TABLE, postgresCampaignParts } from "./support/never-lose-postgres.js";

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

let server: TestPostgresServer;
let admin: pg.Pool;
const dataSources: DataSource[] = [];

beforeAll(async () => {
  server = await startPostgresServer();
  admin = new pg.Pool({ connectionString: server.url, max: 2, connectionTimeoutMillis: 1_000 });
  admin.on("error", () => {});
}, 60_000);

afterAll(async () => {
  await Promise.all(dataSources.map((dataSource) => dataSource.destroy().catch(() => {})));
  await admin?.end().catch(() => {});
  await server?.destroy();
});

function throughTypeorm(): CampaignDatabase<EntityManager> {
  const parts = postgresCampaignParts(server, admin);
  return {
    ...parts,
    label: "typeorm",
    handlerTimeoutMs: 1_000,
    instanceStore: async () => {
      const dataSource = await new DataSource({
        type: "postgres",
        host: "127.0.0.1",
        port: server.port,
        username: "postgres",
        database: "postgres",
        entities: [OrderEntity],
        poolSize: 5,
        connectTimeoutMS: 1_000,
        logging: false,
      }).initialize();
      dataSources.push(dataSource);
      return new PostgresIdempotencyStore({ binding: typeormBinding(dataSource), table: CAMPAIGN_STORE_TABLE });
    },
    markPaid: (manager, id) => manager.getRepository(OrderEntity).increment({ historyId: id }, "paidCount", 1),
    killBackend: async (manager) => {
      const [row] = (await manager.query("SELECT pg_backend_pid() AS pid")) as { pid: number }[];
      await parts.terminate(row?.pid);
    },
  };
}

it(campaignTitle({ outage: "stop" }), () => runNeverLoseCampaign(throughTypeorm()), 600_000);
