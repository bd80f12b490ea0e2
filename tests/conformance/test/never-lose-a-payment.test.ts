// The never-lose campaign (test/support/never-lose-campaign.ts) through `pg` itself on a real PostgreSQL: the
// handler writes with `client.query` on the delivery's pooled client (`ctx.transaction`); the outage is a clean stop
// between deliveries; "between effect and commit" is the delivery's backend terminated from outside. The same
// campaign runs through Prisma, TypeORM and on MariaDB in the never-lose-a-payment-*.test.ts files.
import { PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import { afterAll, beforeAll, it } from "vitest";
import { type CampaignDatabase, campaignTitle, runNeverLoseCampaign } from "./support/never-lose-campaign.js";
import { CAMPAIGN_STORE_TABLE, postgresCampaignParts } from "./support/never-lose-postgres.js";

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
  const parts = postgresCampaignParts(server, newPool(2));
  return {
    ...parts,
    instanceStore: async () =>
      new PostgresIdempotencyStore<pg.PoolClient>({ pool: newPool(5), table: CAMPAIGN_STORE_TABLE }),
    markPaid: (client, id) => client.query("UPDATE orders SET paid_count = paid_count + 1 WHERE history_id = $1", [id]),
    killBackend: async (client) => {
      const { rows } = await client.query("SELECT pg_backend_pid() AS pid");
      await parts.terminate(rows[0]?.pid);
    },
  };
}

it(campaignTitle({ outage: "stop" }), () => runNeverLoseCampaign(throughPg()), 600_000);
