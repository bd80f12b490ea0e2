// The shop of the binding tests, once per database library (Knex, Kysely, Drizzle, Sequelize) and per database
// (PostgreSQL, MySQL/MariaDB): the library over a small pool, the order effect written in the library's own idiom
// through the delivery's transaction object, and a way to kill that transaction's backend. Each maker returns what
// the transactional contract needs, with `makeStore` building the dialect's store on the binding.
import { sql as drizzleSql, eq } from "drizzle-orm";
import { int as myInt, mysqlTable, varchar } from "drizzle-orm/mysql-core";
import { drizzle as drizzleMysql } from "drizzle-orm/mysql2";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { integer, pgTable, text } from "drizzle-orm/pg-core";
import knexFactory, { type Knex } from "knex";
import { Kysely, MysqlDialect, PostgresDialect, sql, type Transaction } from "kysely";
import mysql from "mysql2";
import pg from "pg";
import {
  DataTypes,
  type Model,
  type ModelStatic,
  Sequelize,
  type Transaction as SequelizeTransaction,
} from "sequelize";
import { expect, vi } from "vitest";
import { drizzleBinding } from "../../src/drizzle.js";
import type { SqlBinding } from "../../src/idempotency/sql/binding.js";
import { knexBinding } from "../../src/knex.js";
import { kyselyBinding } from "../../src/kysely.js";
import { sequelizeBinding } from "../../src/sequelize.js";
import { mysqlJournalOnOwnPool, postgresJournalOnOwnPool } from "./own-journal.js";
import type { BoundStore, ContractJournal, TransactionalFixture } from "./transactional-contract.js";

export type Dialect = "postgres" | "mysql";

/** Where the test database listens (PostgreSQL: user postgres, database postgres; MySQL: root, kirimbayar). */
export interface DatabaseTarget {
  readonly dialect: Dialect;
  readonly port: number;
  /** The dialect's store over a binding. */
  makeStore<Tx>(binding: SqlBinding<Tx>, table?: string): BoundStore<Tx>;
}

export const POOL_SIZE = 3;
const UNREACHABLE_PORT = 1;

/** The orders table (one per library, so the four can share a database). */
function ordersTable(dialect: Dialect, name: string): string {
  return dialect === "postgres"
    ? `CREATE TABLE IF NOT EXISTS ${name} (id text PRIMARY KEY, paid integer NOT NULL DEFAULT 0)`
    : `CREATE TABLE IF NOT EXISTS ${name} (id varchar(100) PRIMARY KEY, paid int NOT NULL DEFAULT 0) ENGINE=InnoDB`;
}

/** A connection outside the libraries, to kill a backend and watch it go. */
async function adminOf(target: DatabaseTarget) {
  if (target.dialect === "postgres") {
    const admin = new pg.Pool({ host: "127.0.0.1", port: target.port, user: "postgres", database: "postgres", max: 2 });
    admin.on("error", () => {});
    return {
      run: async (text: string, values: unknown[] = []) => (await admin.query(text, values)).rows,
      kill: async (id: unknown) => {
        await admin.query("SELECT pg_terminate_backend($1, 5000)", [id]);
        await vi.waitFor(
          async () => {
            const { rows } = await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [id]);
            expect(rows).toHaveLength(0);
          },
          { timeout: 5_000, interval: 20 },
        );
      },
      end: () => admin.end(),
    };
  }
  const admin = mysql
    .createPool({ host: "127.0.0.1", port: target.port, user: "root", database: "kirimbayar", connectionLimit: 2 })
    .promise();
  return {
    run: async (text: string, values: unknown[] = []) => (await admin.query(text, values))[0] as unknown[],
    kill: async (id: unknown) => {
      await admin.query(`KILL ${Number(id)}`);
      await vi.waitFor(
        async () => {
          const [rows] = await admin.query("SELECT 1 FROM information_schema.PROCESSLIST WHERE ID = ?", [id]);
          expect(rows).toHaveLength(0);
        },
        { timeout: 5_000, interval: 20 },
      );
    },
    end: () => admin.end(),
  };
}

/** The dialect's SQL journal over a driver pool of its own (not the library's). */
function journalOn(target: DatabaseTarget, table: string): Promise<ContractJournal> {
  return target.dialect === "postgres"
    ? postgresJournalOnOwnPool(pgConfig(target.port, 2), table)
    : mysqlJournalOnOwnPool(mysqlConfig(target.port, 2), table);
}

/** The statement that reads the backend of the connection it runs on. */
const backendIdSql = (dialect: Dialect) =>
  dialect === "postgres" ? "SELECT pg_backend_pid() AS id" : "SELECT CONNECTION_ID() AS id";

// pg's pool listens for `error` on idle connections only: a backend killed while its connection is lent (the
// contract kills one) would otherwise crash the process. Every app on pg should do this.
function quietPgPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}

const pgConfig = (port: number, max: number): pg.PoolConfig => ({
  host: "127.0.0.1",
  port,
  user: "postgres",
  database: "postgres",
  max,
  connectionTimeoutMillis: 1_000,
});

const mysqlConfig = (port: number, connectionLimit: number): mysql.PoolOptions => ({
  host: "127.0.0.1",
  port,
  user: "root",
  database: "kirimbayar",
  connectionLimit,
  connectTimeout: 1_000,
});

// Knex ------------------------------------------------------------------------------------------------------------

function knexOn(dialect: Dialect, port: number, max: number): Knex {
  return knexFactory({
    client: dialect === "postgres" ? "pg" : "mysql2",
    connection:
      dialect === "postgres"
        ? { host: "127.0.0.1", port, user: "postgres", database: "postgres", connectionTimeoutMillis: 1_000 }
        : { host: "127.0.0.1", port, user: "root", database: "kirimbayar", connectTimeout: 1_000 },
    pool: { min: 0, max },
    acquireConnectionTimeout: 2_000,
    // Knex warns of every connection it discards: the contract discards some on purpose.
    log: { warn() {}, error() {}, deprecate() {}, debug() {} },
  });
}

export async function knexFixture(target: DatabaseTarget): Promise<TransactionalFixture<Knex.Transaction>> {
  const db = knexOn(target.dialect, target.port, POOL_SIZE);
  const unreachable = knexOn(target.dialect, UNREACHABLE_PORT, 1);
  const admin = await adminOf(target);
  await admin.run(ordersTable(target.dialect, "orders_knex"));
  return {
    poolSize: POOL_SIZE,
    store: (table) => target.makeStore(knexBinding(db), table),
    // Knex's idiom: the query builder on the transaction.
    markPaid: (trx, id) =>
      trx("orders_knex")
        .insert({ id, paid: 1 })
        .onConflict("id")
        .merge({ paid: trx.raw(target.dialect === "postgres" ? "orders_knex.paid + 1" : "paid + 1") }),
    paidCount: async (id) => Number((await db("orders_knex").where({ id }).first())?.paid ?? 0),
    killBackend: async (trx) => {
      const result = await trx.raw(backendIdSql(target.dialect));
      const row = target.dialect === "postgres" ? result.rows[0] : result[0][0];
      await admin.kill(row.id);
    },
    unreachableStore: () => target.makeStore(knexBinding(unreachable)),
    journal: (journalTable) => journalOn(target, journalTable),
    close: async () => {
      await db.destroy();
      await unreachable.destroy();
      await admin.end();
    },
  };
}

// Kysely ----------------------------------------------------------------------------------------------------------

interface KyselyShop {
  orders_kysely: { id: string; paid: number };
}

function kyselyOn(dialect: Dialect, port: number, max: number): Kysely<KyselyShop> {
  return new Kysely<KyselyShop>({
    dialect:
      dialect === "postgres"
        ? new PostgresDialect({ pool: quietPgPool(pgConfig(port, max)) })
        : new MysqlDialect({ pool: mysql.createPool(mysqlConfig(port, max)) }),
  });
}

export async function kyselyFixture(target: DatabaseTarget): Promise<TransactionalFixture<Transaction<KyselyShop>>> {
  const db = kyselyOn(target.dialect, target.port, POOL_SIZE);
  const unreachable = kyselyOn(target.dialect, UNREACHABLE_PORT, 1);
  const admin = await adminOf(target);
  await admin.run(ordersTable(target.dialect, "orders_kysely"));
  return {
    poolSize: POOL_SIZE,
    store: (table) => target.makeStore(kyselyBinding(db), table),
    // Kysely's idiom: the typed query builder on the Transaction<DB>.
    markPaid: (trx, id) => {
      const insert = trx.insertInto("orders_kysely").values({ id, paid: 1 });
      return target.dialect === "postgres"
        ? insert
            .onConflict((conflict) => conflict.column("id").doUpdateSet({ paid: sql`orders_kysely.paid + 1` }))
            .execute()
        : insert.onDuplicateKeyUpdate({ paid: sql`paid + 1` }).execute();
    },
    paidCount: async (id) =>
      Number((await db.selectFrom("orders_kysely").select("paid").where("id", "=", id).executeTakeFirst())?.paid ?? 0),
    killBackend: async (trx) => {
      const { rows } = await sql<{ id: number }>`${sql.raw(backendIdSql(target.dialect))}`.execute(trx);
      await admin.kill(rows[0]?.id);
    },
    unreachableStore: () => target.makeStore(kyselyBinding(unreachable)),
    journal: (journalTable) => journalOn(target, journalTable),
    close: async () => {
      await db.destroy();
      await unreachable.destroy();
      await admin.end();
    },
  };
}

// Drizzle ---------------------------------------------------------------------------------------------------------

const pgOrders = pgTable("orders_drizzle", { id: text("id").primaryKey(), paid: integer("paid").notNull() });
const mysqlOrders = mysqlTable("orders_drizzle", {
  id: varchar("id", { length: 100 }).primaryKey(),
  paid: myInt("paid").notNull(),
});

export async function drizzlePgFixture(
  target: DatabaseTarget,
): Promise<TransactionalFixture<Parameters<Parameters<ReturnType<typeof drizzlePg>["transaction"]>[0]>[0]>> {
  // No listener on lent connections here: drizzleBinding adds its own (the contract kills a backend).
  const db = drizzlePg(new pg.Pool(pgConfig(target.port, POOL_SIZE)).on("error", () => {}));
  const unreachable = drizzlePg(new pg.Pool(pgConfig(UNREACHABLE_PORT, 1)).on("error", () => {}));
  const admin = await adminOf(target);
  await admin.run(ordersTable("postgres", "orders_drizzle"));
  return {
    poolSize: POOL_SIZE,
    store: (table) => target.makeStore(drizzleBinding(db), table),
    // Drizzle's idiom: the typed query builder on the transaction.
    markPaid: (tx, id) =>
      tx
        .insert(pgOrders)
        .values({ id, paid: 1 })
        .onConflictDoUpdate({ target: pgOrders.id, set: { paid: drizzleSql`${pgOrders.paid} + 1` } }),
    paidCount: async (id) => Number((await db.select().from(pgOrders).where(eq(pgOrders.id, id)))[0]?.paid ?? 0),
    killBackend: async (tx) => {
      const result = await tx.execute(drizzleSql.raw(backendIdSql("postgres")));
      await admin.kill(result.rows[0]?.id);
    },
    unreachableStore: () => target.makeStore(drizzleBinding(unreachable)),
    journal: (journalTable) => journalOn(target, journalTable),
    close: async () => {
      await db.$client.end();
      await unreachable.$client.end();
      await admin.end();
    },
  };
}

export async function drizzleMysqlFixture(
  target: DatabaseTarget,
): Promise<TransactionalFixture<Parameters<Parameters<ReturnType<typeof drizzleMysql>["transaction"]>[0]>[0]>> {
  const db = drizzleMysql(mysql.createPool(mysqlConfig(target.port, POOL_SIZE)));
  const unreachable = drizzleMysql(mysql.createPool(mysqlConfig(UNREACHABLE_PORT, 1)));
  const admin = await adminOf(target);
  await admin.run(ordersTable("mysql", "orders_drizzle"));
  return {
    poolSize: POOL_SIZE,
    store: (table) => target.makeStore(drizzleBinding(db), table),
    markPaid: (tx, id) =>
      tx
        .insert(mysqlOrders)
        .values({ id, paid: 1 })
        .onDuplicateKeyUpdate({ set: { paid: drizzleSql`${mysqlOrders.paid} + 1` } }),
    paidCount: async (id) => Number((await db.select().from(mysqlOrders).where(eq(mysqlOrders.id, id)))[0]?.paid ?? 0),
    killBackend: async (tx) => {
      const [rows] = (await tx.execute(drizzleSql.raw(backendIdSql("mysql")))) as unknown as [{ id: number }[]];
      await admin.kill(rows[0]?.id);
    },
    unreachableStore: () => target.makeStore(drizzleBinding(unreachable)),
    journal: (journalTable) => journalOn(target, journalTable),
    close: async () => {
      await db.$client.promise().end();
      await unreachable.$client.promise().end();
      await admin.end();
    },
  };
}

// Sequelize -------------------------------------------------------------------------------------------------------

interface OrderRow extends Model {
  id: string;
  paid: number;
}

function sequelizeOn(dialect: Dialect, port: number, max: number): Sequelize {
  return new Sequelize({
    dialect,
    host: "127.0.0.1",
    port,
    username: dialect === "postgres" ? "postgres" : "root",
    database: dialect === "postgres" ? "postgres" : "kirimbayar",
    logging: false,
    pool: { max, min: 0, acquire: 2_000 },
    dialectOptions: dialect === "postgres" ? { connectionTimeoutMillis: 1_000 } : { connectTimeout: 1_000 },
    retry: { max: 0 },
  });
}

export async function sequelizeFixture(target: DatabaseTarget): Promise<TransactionalFixture<SequelizeTransaction>> {
  const sequelize = sequelizeOn(target.dialect, target.port, POOL_SIZE);
  const unreachable = sequelizeOn(target.dialect, UNREACHABLE_PORT, 1);
  const Order: ModelStatic<OrderRow> = sequelize.define<OrderRow>(
    "Order",
    { id: { type: DataTypes.STRING(100), primaryKey: true }, paid: { type: DataTypes.INTEGER, allowNull: false } },
    { tableName: "orders_sequelize", timestamps: false },
  );
  await Order.sync();
  return {
    poolSize: POOL_SIZE,
    store: (table) => target.makeStore(sequelizeBinding(sequelize), table),
    // Sequelize's idiom: model methods with { transaction }.
    markPaid: async (transaction, id) => {
      await Order.bulkCreate([{ id, paid: 0 }], { ignoreDuplicates: true, transaction });
      await Order.increment("paid", { by: 1, where: { id }, transaction });
    },
    paidCount: async (id) => Number((await Order.findByPk(id))?.paid ?? 0),
    killBackend: async (transaction) => {
      const [rows] = (await sequelize.query(backendIdSql(target.dialect), { transaction })) as [
        { id: number }[],
        unknown,
      ];
      const admin = await adminOf(target);
      try {
        await admin.kill(rows[0]?.id);
      } finally {
        await admin.end();
      }
    },
    unreachableStore: () => target.makeStore(sequelizeBinding(unreachable)),
    journal: (journalTable) => journalOn(target, journalTable),
    close: async () => {
      await sequelize.close();
      await unreachable.close();
    },
  };
}
