// What the never-lose campaign's MariaDB variants (mysql2, TypeORM) share (issue 28): the orders table and the
// store's table, read and written on a pool of the test's own; the connection kill; the outage as a SIGKILL of
// `mariadbd` while deliveries sit between their effect and their commit, then a restart (InnoDB crash recovery).
import { MysqlIdempotencyStore } from "@kirimbayar/core/mysql";
import { TEST_DATABASE, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import mysql from "mysql2/promise";
import { expect, vi } from "vitest";
import type { CampaignDatabase } from "./never-lose-campaign.js";

/** The store's table in every MariaDB variant. */
export const CAMPAIGN_STORE_TABLE = "webhook_events";

/** The campaign's parts that do not depend on the library under test. */
export type MariaDbCampaignParts = Pick<
  CampaignDatabase<unknown>,
  "outage" | "prepare" | "addOrders" | "orders" | "goDown" | "comeBack"
> & {
  /** Kills connection `id` from outside (`KILL`) and waits (up to 5 s) until the server has let it go. */
  kill(id: unknown): Promise<void>;
};

/**
 * A mysql2 pool on `server` whose connections never throw an unhandled `error` (a SIGKILLed server breaks every
 * idle connection at once; mysql2 listens only once per connection).
 */
export function mariaDbPool(server: TestMariaDbServer, connectionLimit: number): mysql.Pool {
  const pool = mysql.createPool({
    host: "127.0.0.1",
    port: server.port,
    user: "root",
    database: TEST_DATABASE,
    connectionLimit,
    connectTimeout: 1_000,
  });
  pool.on("connection", (connection) => {
    (connection as unknown as { on(event: "error", listener: () => void): void }).on("error", () => {});
  });
  return pool;
}

/** The orders and faults of a MariaDB variant, through `admin` (a pool the instances do not use). */
export function mariaDbCampaignParts(server: TestMariaDbServer, admin: mysql.Pool): MariaDbCampaignParts {
  return {
    outage: "crash-mid-flight",
    prepare: async () => {
      // Durable, as issue 28 asks: every commit flushed to the redo log; no binary log, or one synced at each commit.
      const [settings] = await admin.query<mysql.RowDataPacket[]>(
        "SELECT @@innodb_flush_log_at_trx_commit AS flush, @@log_bin AS binlog, @@sync_binlog AS syncBinlog",
      );
      const durable = settings[0];
      expect(Number(durable?.flush)).toBe(1);
      expect(Number(durable?.binlog) === 0 || Number(durable?.syncBinlog) === 1).toBe(true);
      await admin.query(
        "CREATE TABLE orders (history_id varchar(64) PRIMARY KEY, amount int NOT NULL, paid_count int NOT NULL DEFAULT 0) ENGINE=InnoDB",
      );
      await new MysqlIdempotencyStore({ pool: admin, table: CAMPAIGN_STORE_TABLE }).ensureSchema();
    },
    addOrders: async (orders) => {
      await admin.query("INSERT INTO orders (history_id, amount) VALUES ?", [
        orders.map((order) => [order.id, order.amount]),
      ]);
    },
    orders: async () => {
      const [rows] = await admin.query<mysql.RowDataPacket[]>("SELECT history_id, amount, paid_count FROM orders");
      return rows.map((row) => ({
        id: String(row.history_id),
        amount: Number(row.amount),
        paidCount: Number(row.paid_count),
      }));
    },
    kill: async (id) => {
      await admin.query(`KILL ${Number(id)}`);
      await vi.waitFor(
        async () => {
          const [rows] = await admin.query<mysql.RowDataPacket[]>(
            "SELECT 1 FROM information_schema.PROCESSLIST WHERE ID = ?",
            [id],
          );
          expect(rows).toHaveLength(0);
        },
        { timeout: 5_000, interval: 20 },
      );
    },
    goDown: () => server.crash(),
    comeBack: () => server.start(),
  };
}
