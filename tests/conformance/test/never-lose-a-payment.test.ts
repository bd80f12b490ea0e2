// The never-lose campaign (test/support/never-lose-campaign.ts) through `pg` itself on a real PostgreSQL: the
// handler writes with `client.query` on the delivery's pooled client (`ctx.transaction`); the outage is a clean stop
// between deliveries; "between effect and commit" is the delivery's backend terminated from outside. The same
// campaign runs through Prisma, TypeORM and on MariaDB in the never-lose-a-payment-*.test.ts files.
import { PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import { afterAll, beforeAll, it } from "vitest";
import { type CampaignDatabase, campaignTitle, runNeverLoseCampaign } from "./support/never-lose-campaign.js";

let server: TestPostgresServer;
const pools: pg.Pool[] = [];

beforeAll(async () => {
  server = await startPostgresServer();
}, 60_000);

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end().catch(() => {})));
  await server?.destroy();
});

function newPool(max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: server.url, max, connectionTimeoutMillis: 1_000 });
  pool.on("error", () => {});
  pools.push(pool);
  return pool;
}

function throughPg(): CampaignDatabase<pg.PoolClient> {
  const admin = newPool(2);
  return {
    outage: "stop",
    prepare: async () => {
      await admin.query(
        "CREATE TABLE orders (history_id text PRIMARY KEY, amount int NOT NULL, paid_count int NOT NULL DEFAULT 0)",
      );
      await new PostgresIdempotencyStore({ pool: admin, table: "webhook_events" }).ensureSchema();
    },
    addOrders: async (orders) => {
      await admin.query("INSERT INTO orders (history_id, amount) SELECT * FROM unnest($1::text[], $2::int[])", [
        orders.map((order) => order.id),
        orders.map((order) => order.amount),
      ]);
    },
    orders: async () =>
      (await admin.query("SELECT history_id, amount, paid_count FROM orders")).rows.map((row) => ({
        id: String(row.history_id),
        amount: Number(row.amount),
        paidCount: Number(row.paid_count),
      })),
    instanceStore: async () =>
      new PostgresIdempotencyStore<pg.PoolClient>({ pool: newPool(5), table: "webhook_events" }),
    markPaid: (client, id) => client.query("UPDATE orders SET paid_count = paid_count + 1 WHERE history_id = $1", [id]),
    killBackend: async (client) => {
      const { rows } = await client.query("SELECT pg_backend_pid() AS pid");
      // Waits (up to 5 s) until the backend has exited.
      await admin.query("SELECT pg_terminate_backend($1, 5000)", [rows[0]?.pid]);
    },
    goDown: () => server.stop(),
    comeBack: () => server.start(),
  };
}

it(campaignTitle({ outage: "stop" }), () => runNeverLoseCampaign(throughPg()), 600_000);
