import { PGlite } from "@electric-sql/pglite";
import { type PgQueryable, PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import pg from "pg";
import { PostgresOrderRepository } from "./postgres-order-repository.js";

/** The shop's PostgreSQL: its orders and the webhooks' idempotency records, in one database. */
export interface ShopDatabase {
  orders: PostgresOrderRepository;
  store: PostgresIdempotencyStore;
  /** `"postgres"` for a server (`DATABASE_URL`), `"pglite"` for the in-process database. */
  kind: "postgres" | "pglite";
  close(): Promise<void>;
}

/**
 * Opens the shop's database: the PostgreSQL server of `databaseUrl`, or without one an in-process PGlite database
 * (nothing to install; its data lives as long as the process). Creates the tables when missing.
 *
 * @example
 * const database = await openShopDatabase(process.env.DATABASE_URL);
 */
export async function openShopDatabase(databaseUrl: string | undefined): Promise<ShopDatabase> {
  let database: ShopDatabase;
  if (databaseUrl === undefined) {
    const db = new PGlite();
    database = {
      orders: new PostgresOrderRepository(db, (work) => db.transaction(work)),
      store: new PostgresIdempotencyStore({ client: db, table: "shop_webhook_events" }),
      kind: "pglite",
      close: () => db.close(),
    };
  } else {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
    // Errors of idle connections (a database restart) surface on the next query; they must not crash the shop.
    pool.on("error", () => {});
    database = {
      orders: new PostgresOrderRepository(pool, (work) => inPoolTransaction(pool, work)),
      store: new PostgresIdempotencyStore({ pool, table: "shop_webhook_events" }),
      kind: "postgres",
      close: () => pool.end(),
    };
  }
  try {
    await database.orders.ensureSchema();
    await database.store.ensureSchema();
  } catch (error) {
    await database.close();
    // The URL may carry a password: name the variable, not its value.
    throw new Error(`Cannot prepare the database of DATABASE_URL: ${(error as Error).message}`, { cause: error });
  }
  return database;
}

async function inPoolTransaction<T>(pool: pg.Pool, work: (db: PgQueryable) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    client.release();
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    client.release(true);
    throw error;
  }
}
