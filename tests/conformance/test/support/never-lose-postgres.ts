// What the never-lose campaign's PostgreSQL variants (pg, Prisma, TypeORM) share: the orders table and the store's
// table, read and written on a pool of the test's own; the backend kill; the outage as a clean stop of the server.
import { PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import type { TestPostgresServer } from "@kirimbayar/test-postgres-server";
import type pg from "pg";
import type { CampaignDatabase } from "./never-lose-campaign.js";

/** The store's table in every PostgreSQL variant. */
export const CAMPAIGN_STORE_TABLE = "webhook_events";

/** The campaign's parts that do not depend on the library under test. */
export type PostgresCampaignParts = Pick<
  CampaignDatabase<unknown>,
  "outage" | "prepare" | "addOrders" | "orders" | "goDown" | "comeBack"
> & {
  /** Terminates backend `pid` from outside and waits (up to 5 s) until it has exited. */
  terminate(pid: unknown): Promise<void>;
};

/** The orders and faults of a PostgreSQL variant, through `admin` (a pool the instances do not use). */
export function postgresCampaignParts(server: TestPostgresServer, admin: pg.Pool): PostgresCampaignParts {
  return {
    outage: "stop",
    prepare: async () => {
      await admin.query(
        "CREATE TABLE orders (history_id text PRIMARY KEY, amount int NOT NULL, paid_count int NOT NULL DEFAULT 0)",
      );
      await new PostgresIdempotencyStore({ pool: admin, table: CAMPAIGN_STORE_TABLE }).ensureSchema();
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
    terminate: async (pid) => {
      await admin.query("SELECT pg_terminate_backend($1, 5000)", [pid]);
    },
    goDown: () => server.stop(),
    comeBack: () => server.start(),
  };
}
