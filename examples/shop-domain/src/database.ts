import { PGlite } from "@electric-sql/pglite";
import type { DeliveryJournal } from "@kirimbayar/core/journal";
import { type PgQueryable, PostgresDeliveryJournal, PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import type { IdempotencyStore, TransactionalIdempotencyStore } from "@kirimbayar/core/webhooks";
import pg from "pg";
import { ShopConfigError } from "./config.js";
import type { OrderRepository } from "./order-repository.js";
import { PostgresOrderRepository } from "./postgres-order-repository.js";

/**
 * The shop's database: its orders and the webhooks' idempotency records in one database, whose transactions (`Tx`:
 * the `pg` connection, Prisma's transaction client, TypeORM's EntityManager, ...) the payment webhooks' handlers
 * update their order through.
 */
export interface ShopDatabase<Tx = PgQueryable> {
  orders: OrderRepository;
  store: IdempotencyStore & TransactionalIdempotencyStore<Tx>;
  /** The orders on a delivery's open transaction (`ctx.transaction`). */
  ordersWithin(transaction: Tx): OrderRepository;
  /**
   * The delivery journal beside the records (each entry written in its delivery's transaction), for the webhook
   * console; without it the shop journals in memory.
   */
  journal?: DeliveryJournal;
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
  let database: ShopDatabase & {
    orders: PostgresOrderRepository;
    store: PostgresIdempotencyStore;
    journal: PostgresDeliveryJournal;
  };
  if (databaseUrl !== undefined && !/^postgres(ql)?:/.test(databaseUrl)) {
    throw new ShopConfigError([
      {
        variable: "DATABASE_URL",
        message:
          "this shop keeps its orders in PostgreSQL through pg; MySQL and MariaDB are the NestJS shop's (TypeORM)",
      },
    ]);
  }
  if (databaseUrl === undefined) {
    const db = new PGlite();
    const orders = new PostgresOrderRepository(db, (work) => db.transaction(work));
    database = {
      orders,
      ordersWithin: (tx) => orders.within(tx),
      store: new PostgresIdempotencyStore({ client: db, table: "shop_webhook_events" }),
      journal: new PostgresDeliveryJournal({ client: db, table: "shop_webhook_journal" }),
      kind: "pglite",
      close: () => db.close(),
    };
  } else {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
    // Errors of idle connections (a database restart) surface on the next query; they must not crash the shop.
    pool.on("error", () => {});
    const orders = new PostgresOrderRepository(pool, (work) => inPoolTransaction(pool, work));
    database = {
      orders,
      ordersWithin: (tx) => orders.within(tx),
      store: new PostgresIdempotencyStore({ pool, table: "shop_webhook_events" }),
      journal: new PostgresDeliveryJournal({ pool, table: "shop_webhook_journal" }),
      kind: "postgres",
      close: () => pool.end(),
    };
  }
  try {
    await database.orders.ensureSchema();
    await database.store.ensureSchema();
    await database.journal.ensureSchema();
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
