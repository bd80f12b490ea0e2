import { PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { typeormBinding } from "@kirimbayar/core/typeorm";
import type { IdempotencyStore, TransactionalIdempotencyStore } from "@kirimbayar/core/webhooks";
import { startEmbeddedPostgres } from "@kirimbayar/example-shop-domain";
import { DataSource, type EntityManager } from "typeorm";
import { OrderCounterEntity, SHOP_ENTITIES } from "./entities.js";
import { TypeOrmOrderRepository } from "./typeorm-order-repository.js";

/** The idempotency store of the shop's database, whose transactions hand TypeORM's `EntityManager` to handlers. */
export type ShopIdempotencyStore = IdempotencyStore & TransactionalIdempotencyStore<EntityManager>;

/** The NestJS shop's database: TypeORM's `DataSource`, the orders on it and the webhooks' idempotency records. */
export interface ShopDatabase {
  readonly dataSource: DataSource;
  readonly orders: TypeOrmOrderRepository;
  readonly store: ShopIdempotencyStore;
  /** `"postgres"`, `"mysql"` (also MariaDB), or `"embedded"` (PGlite, no server). */
  readonly kind: "postgres" | "mysql" | "embedded";
  close(): Promise<void>;
}

const EVENTS_TABLE = "shop_webhook_events";

/**
 * Opens the shop's database through TypeORM: the server of `databaseUrl` (`postgres://` or `mysql://`/`mariadb://`),
 * or without one an embedded PostgreSQL (PGlite, nothing to install). Creates the tables when missing.
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
  const close = async () => {
    await dataSource.destroy();
    await closeEmbedded();
  };
  try {
    const store = await idempotencyStoreOf(dataSource, mysql);
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
      store,
      kind: embedded !== undefined ? "embedded" : mysql ? "mysql" : "postgres",
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function idempotencyStoreOf(dataSource: DataSource, mysql: boolean): Promise<ShopIdempotencyStore> {
  const binding = typeormBinding(dataSource);
  if (mysql) {
    const { MysqlIdempotencyStore } = await import("@kirimbayar/core/mysql");
    const store = new MysqlIdempotencyStore({ binding, table: EVENTS_TABLE });
    await store.ensureSchema();
    return store;
  }
  const store = new PostgresIdempotencyStore({ binding, table: EVENTS_TABLE });
  await store.ensureSchema();
  return store;
}
