import type { MysqlDeliveryJournal } from "@kirimbayar/core/mysql";
import { PostgresDeliveryJournal, PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { typeormBinding } from "@kirimbayar/core/typeorm";
import type { IdempotencyStore, TransactionalIdempotencyStore } from "@kirimbayar/core/webhooks";
import { startEmbeddedPostgres } from "@kirimbayar/example-shop-domain";
import { DataSource, type EntityManager } from "typeorm";
import { OrderCounterEntity, SHOP_ENTITIES } from "./entities.js";
import { TypeOrmOrderRepository } from "./typeorm-order-repository.js";

/** The idempotency store of the shop's database, whose transactions hand TypeORM's `EntityManager` to handlers. */
export type ShopIdempotencyStore = IdempotencyStore & TransactionalIdempotencyStore<EntityManager>;

/**
 * The delivery journal of the shop's database: each transactional delivery's entry is a statement of the delivery's
 * transaction, so it commits with the order update; other entries are batched.
 */
export type ShopDeliveryJournal = PostgresDeliveryJournal<EntityManager> | MysqlDeliveryJournal<EntityManager>;

/**
 * The NestJS shop's database: TypeORM's `DataSource`, the orders on it, the webhooks' idempotency records and their
 * delivery journal.
 */
export interface ShopDatabase {
  readonly dataSource: DataSource;
  readonly orders: TypeOrmOrderRepository;
  readonly store: ShopIdempotencyStore;
  /** The webhook console's journal, beside the records (table `shop_webhook_journal`). */
  readonly journal: ShopDeliveryJournal;
  /** `"postgres"`, `"mysql"` (also MariaDB), or `"embedded"` (PGlite, no server). */
  readonly kind: "postgres" | "mysql" | "embedded";
  /** Writes the journal's last entries, then closes the connections (and the embedded PostgreSQL, if any). */
  close(): Promise<void>;
}

const EVENTS_TABLE = "shop_webhook_events";
const JOURNAL_TABLE = "shop_webhook_journal";

/**
 * Opens the shop's database through TypeORM: the server of `databaseUrl` (`postgres://` or `mysql://`/`mariadb://`),
 * or without one an embedded PostgreSQL (PGlite, nothing to install). Creates the tables when missing, the
 * idempotency store's and the journal's included.
 *
 * @example
 * const database = await openShopDatabase(process.env.DATABASE_URL);
 */
export async function openShopDatabase(databaseUrl: string | undefined): Promise<ShopDatabase> {
  const embedded = databaseUrl === undefined ? await startEmbeddedPostgres() : undefined;
  const url = databaseUrl ?? (embedded?.url as string);
  const mysql = /^(mysql|mariadb):/.test(url);
  const dataSource = new DataSource({
    ...(mysql
      ? { type: "mysql" as const, url: url.replace(/^mariadb:/, "mysql:") }
      : { type: "postgres" as const, url }),
    entities: SHOP_ENTITIES,
    // The example creates its tables at start; a shop in production runs migrations (see the core README for the
    // idempotency table's SQL in TypeORM migrations).
    synchronize: true,
    // A PGlite database is one connection: the embedded server runs the pool's transactions one after another.
    extra: mysql ? { connectionLimit: 10 } : { max: embedded === undefined ? 10 : 4 },
  });
  const closeEmbedded = async () => embedded?.close();
  try {
    await dataSource.initialize();
  } catch (error) {
    await closeEmbedded();
    // The URL may carry a password: name the variable, not its value.
    throw new Error(`Cannot open the database of DATABASE_URL: ${(error as Error).message}`, { cause: error });
  }
  let journal: ShopDeliveryJournal | undefined;
  const close = async () => {
    try {
      // What is still batched goes in while the connections are open.
      await journal?.close();
    } finally {
      await dataSource.destroy();
      await closeEmbedded();
    }
  };
  try {
    const records = await webhookRecordsOf(dataSource, embedded !== undefined);
    journal = records.journal;
    // The order counter's row, once: concurrent first orders then lock it instead of racing to create it.
    await dataSource
      .createQueryBuilder()
      .insert()
      .into(OrderCounterEntity)
      .values({ name: "orders", value: 0 })
      .orIgnore()
      .execute();
    return {
      dataSource,
      orders: TypeOrmOrderRepository.of(dataSource),
      store: records.store,
      journal: records.journal,
      kind: embedded !== undefined ? "embedded" : mysql ? "mysql" : "postgres",
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

// The store and the journal of the DataSource's database, chosen by its type, both on its binding: a transactional
// delivery's entry then goes through the same TypeORM transaction as its order update and its record.
async function webhookRecordsOf(
  dataSource: DataSource,
  embedded: boolean,
): Promise<{ store: ShopIdempotencyStore; journal: ShopDeliveryJournal }> {
  const binding = typeormBinding(dataSource);
  const { type } = dataSource.options;
  if (type === "mysql" || type === "mariadb") {
    const { MysqlDeliveryJournal, MysqlIdempotencyStore } = await import("@kirimbayar/core/mysql");
    const store = new MysqlIdempotencyStore({ binding, table: EVENTS_TABLE });
    const journal = new MysqlDeliveryJournal({ binding, table: JOURNAL_TABLE });
    await store.ensureSchema();
    await journal.ensureSchema();
    return { store, journal };
  }
  // The embedded PostgreSQL serves every pooled connection from one PGlite session, so a statement prepared under a
  // name on one connection already exists for the next, as behind a transaction-mode pooler: no names there.
  const store = new PostgresIdempotencyStore({ binding, table: EVENTS_TABLE, preparedStatements: !embedded });
  const journal = new PostgresDeliveryJournal({ binding, table: JOURNAL_TABLE });
  await store.ensureSchema();
  await journal.ensureSchema();
  return { store, journal };
}
