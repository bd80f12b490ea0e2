// The never-lose campaign (test/support/never-lose-campaign.ts) on MariaDB through mysql2 itself (issue 28), durable
// settings checked (innodb_flush_log_at_trx_commit=1, no binary log): each app instance has its own mysql2 pool and
// MysqlIdempotencyStore in transactional mode, and the handler writes with `connection.execute` on the pooled
// connection holding the delivery's InnoDB transaction (`ctx.transaction`). `mariadbd` is SIGKILLed twice while the
// minute's deliveries sit between their effect and their commit: once restarted at once, once at the start of the
// 30-minute outage, restarted when it ends; recovery is measured from each return. "Between effect and commit" on
// single deliveries is their connection killed from outside (`KILL`, its id read through the transaction's connection).
import { MysqlIdempotencyStore } from "@kirimbayar/core/mysql";
import { startMariaDbServer, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import type mysql from "mysql2/promise";
import { afterAll, beforeAll, it } from "vitest";
import { type CampaignDatabase, campaignTitle, runNeverLoseCampaign } from "./support/never-lose-campaign.js";
import { CAMPAIGN_STORE_TABLE, mariaDbCampaignParts, mariaDbPool } from "./support/never-lose-mariadb.js";

let server: TestMariaDbServer;
const pools: mysql.Pool[] = [];

beforeAll(async () => {
  server = await startMariaDbServer();
}, 60_000);

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end().catch(() => {})));
  await server?.destroy();
});

function newPool(connectionLimit: number): mysql.Pool {
  const pool = mariaDbPool(server, connectionLimit);
  pools.push(pool);
  return pool;
}

function throughMysql2(): CampaignDatabase<mysql.PoolConnection> {
  const parts = mariaDbCampaignParts(server, newPool(2));
  return {
    ...parts,
    label: "mariadb",
    // Long enough for the deliveries held at the crash to still be inside their limit when the server dies.
    handlerTimeoutMs: 1_000,
    instanceStore: async () =>
      new MysqlIdempotencyStore<mysql.PoolConnection>({ pool: newPool(5), table: CAMPAIGN_STORE_TABLE }),
    markPaid: (connection, id) =>
      connection.execute("UPDATE orders SET paid_count = paid_count + 1 WHERE history_id = ?", [id]),
    killBackend: async (connection) => {
      const [rows] = await connection.query<mysql.RowDataPacket[]>("SELECT CONNECTION_ID() AS id");
      await parts.kill(rows[0]?.id);
    },
  };
}

it(campaignTitle({ outage: "crash-mid-flight" }), () => runNeverLoseCampaign(throughMysql2()), 600_000);
