// The PostgreSQL set-ups of the README and the guides, each as a shop pastes it (default options everywhere), pointed
// at a database URL: here PgBouncer's. Each builds the receiver's `idempotency` (and `journal`) options and a handler
// writing the payment's effect (one row into `effects`) the way the guide shows: through the pool outside a
// transaction, or through `ctx.transaction` in the library's own idiom.

import { drizzleBinding } from "@kirimbayar/core/drizzle";
import type { DeliveryJournal } from "@kirimbayar/core/journal";
import { knexBinding } from "@kirimbayar/core/knex";
import { kyselyBinding } from "@kirimbayar/core/kysely";
import { PostgresDeliveryJournal, PostgresIdempotencyStore, type SqlBinding } from "@kirimbayar/core/postgres";
import { type PrismaTransactionClient, prismaBinding } from "@kirimbayar/core/prisma";
import { sequelizeBinding } from "@kirimbayar/core/sequelize";
import { typeormBinding } from "@kirimbayar/core/typeorm";
import type { IdempotencyStore, WebhookContext, WebhookLogger } from "@kirimbayar/core/webhooks";
import { PrismaPg } from "@prisma/adapter-pg";
import { drizzle } from "drizzle-orm/node-postgres";
import { pgTable, serial, text } from "drizzle-orm/pg-core";
import knexFactory, { type Knex } from "knex";
import { Kysely, PostgresDialect, type Transaction } from "kysely";
import pg from "pg";
import { DataTypes, Sequelize, type Transaction as SequelizeTransaction } from "sequelize";
import { DataSource, type EntityManager, EntitySchema } from "typeorm";
import { PrismaClient } from "../../prisma/generated/client.js";

/** The app's own pool size: larger than the pooler's pool in transaction mode, so clients share server connections. */
export const APP_POOL_SIZE = 10;

/** The effects table every set-up writes: one row per time a handler applied a payment. */
export const EFFECTS_TABLE =
  "CREATE TABLE IF NOT EXISTS effects (id serial PRIMARY KEY, history_id text NOT NULL, setup text NOT NULL)";

/** One shop, built: what the receiver gets, the handler, and how to close it. */
export interface Shop {
  readonly store: IdempotencyStore;
  readonly transactional: boolean;
  readonly journal?: DeliveryJournal & { flush(): Promise<void>; close(): Promise<void> };
  /** Applies the payment: one row into `effects`. */
  markPaid(historyId: string, ctx: WebhookContext): Promise<unknown>;
  close(): Promise<void>;
}

/** A set-up of the README or a guide. */
export interface Setup {
  readonly name: string;
  /** Whether it sends named statements by default (a `pg` Pool; TypeORM's transactional claim). */
  readonly namesStatements: boolean;
  /** Builds the shop on `url` (default options everywhere), its store and journal logging to `logger`. */
  build(url: string, logger: WebhookLogger): Promise<Shop>;
}

// pg's pool listens for `error` on idle connections only; the guides tell shops to listen (a pooler restart drops
// lent connections too).
function quietPool(url: string, max = APP_POOL_SIZE): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}

async function ready<T extends { ensureSchema(): Promise<void> }>(thing: T): Promise<T> {
  await thing.ensureSchema();
  return thing;
}

const insertEffect = "INSERT INTO effects (history_id, setup) VALUES ($1, $2)";

/**
 * The shop of a `pg` set-up: the effect written through `ctx.transaction` (the store's client, in the delivery's
 * transaction) when transactional, else through the app's `pool`; `close` runs after the journal's.
 */
function pgShop(
  name: string,
  transactional: boolean,
  parts: {
    store: IdempotencyStore;
    journal: PostgresDeliveryJournal | undefined;
    pool: pg.Pool;
    close(): Promise<void>;
  },
): Shop {
  const { store, journal, pool } = parts;
  return {
    store,
    transactional,
    ...(journal ? { journal } : {}),
    markPaid: (historyId, ctx) =>
      transactional
        ? (ctx.transaction as pg.ClientBase).query(insertEffect, [historyId, name])
        : pool.query(insertEffect, [historyId, name]),
    close: async () => {
      await journal?.close();
      await parts.close();
    },
  };
}

/** `PostgresIdempotencyStore({ pool })` as the Postgres guide shows it, with or without the journal. */
function pgPoolSetup(name: string, transactional: boolean, withJournal: boolean): Setup {
  return {
    name,
    namesStatements: true,
    async build(url, logger) {
      const pool = quietPool(url);
      const store = await ready(new PostgresIdempotencyStore({ pool, logger }));
      const journal = withJournal ? await ready(new PostgresDeliveryJournal({ pool, logger })) : undefined;
      return pgShop(name, transactional, { store, journal, pool, close: () => pool.end() });
    },
  };
}

/** `PostgresIdempotencyStore({ client })`: one `pg` Client, operations taking turns on it. */
function pgClientSetup(name: string, transactional: boolean, withJournal: boolean): Setup {
  return {
    name,
    // A client's default is unnamed (it may be PGlite).
    namesStatements: false,
    async build(url, logger) {
      const client = new pg.Client({ connectionString: url });
      client.on("error", () => {});
      await client.connect();
      // The handler's own writes outside a transaction go through a pool of the app's: the client takes turns.
      const pool = quietPool(url, 3);
      const store = await ready(new PostgresIdempotencyStore({ client, logger }));
      // The journal on the store's client: its batches take turns with the deliveries' transactions on it.
      const journal = withJournal ? await ready(new PostgresDeliveryJournal({ client, logger })) : undefined;
      return pgShop(name, transactional, {
        store,
        journal,
        pool,
        close: async () => {
          await client.end().catch(() => {});
          await pool.end();
        },
      });
    },
  };
}

/** The `pg` set-ups: pool and client, plain and transactional, with the journal. */
export const pgSetups: Setup[] = [
  pgPoolSetup("pg Pool", false, false),
  pgPoolSetup("pg Pool + journal", false, true),
  pgPoolSetup("pg Pool, transactional", true, false),
  pgPoolSetup("pg Pool, transactional + journal", true, true),
  pgClientSetup("pg Client + journal", false, true),
  pgClientSetup("pg Client, transactional + journal", true, true),
];

const EffectEntity = new EntitySchema<{ id: number; historyId: string; setup: string }>({
  name: "Effect",
  tableName: "effects",
  columns: {
    id: { type: Number, primary: true, generated: "increment" },
    historyId: { name: "history_id", type: String },
    setup: { type: String },
  },
});

const drizzleEffects = pgTable("effects", {
  id: serial("id").primaryKey(),
  historyId: text("history_id").notNull(),
  setup: text("setup").notNull(),
});

interface KyselyShop {
  effects: { history_id: string; setup: string };
}

/**
 * A set-up through a library's binding (the guide of each ORM): the store and the journal on the binding, the
 * handler writing through `ctx.transaction` in the library's idiom.
 */
function ormSetup<Tx>(
  name: string,
  namesStatements: boolean,
  open: (url: string) => Promise<{
    binding: SqlBinding<Tx>;
    write(tx: Tx, historyId: string): Promise<unknown>;
    close(): Promise<void>;
  }>,
): Setup {
  return {
    name,
    namesStatements,
    async build(url, logger) {
      const library = await open(url);
      const store = await ready(new PostgresIdempotencyStore({ binding: library.binding, logger }));
      const journal = await ready(new PostgresDeliveryJournal({ binding: library.binding, logger }));
      return {
        store,
        transactional: true,
        journal,
        markPaid: (historyId, ctx) => library.write(ctx.transaction as Tx, historyId),
        close: async () => {
          await journal.close();
          await library.close();
        },
      };
    },
  };
}

/** Every ORM binding on PostgreSQL, transactional, with the journal on the same binding. */
export const ormSetups: Setup[] = [
  ormSetup<PrismaTransactionClient<PrismaClient>>(
    "Prisma (adapter-pg), transactional + journal",
    false,
    async (url) => {
      const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: APP_POOL_SIZE }) });
      await prisma.$connect();
      return {
        binding: prismaBinding(prisma),
        write: (tx, historyId) => tx.effect.create({ data: { historyId, setup: "prisma" } }),
        close: () => prisma.$disconnect(),
      };
    },
  ),
  ormSetup<EntityManager>("TypeORM, transactional + journal", true, async (url) => {
    const dataSource = await new DataSource({
      type: "postgres",
      url,
      poolSize: APP_POOL_SIZE,
      entities: [EffectEntity],
      logging: false,
    }).initialize();
    return {
      binding: typeormBinding(dataSource),
      write: (manager, historyId) => manager.insert(EffectEntity, { historyId, setup: "typeorm" }),
      close: () => dataSource.destroy(),
    };
  }),
  ormSetup<Knex.Transaction>("Knex, transactional + journal", false, async (url) => {
    const knex = knexFactory({ client: "pg", connection: url, pool: { min: 0, max: APP_POOL_SIZE } });
    return {
      binding: knexBinding(knex),
      write: (trx, historyId) => trx("effects").insert({ history_id: historyId, setup: "knex" }),
      close: () => knex.destroy(),
    };
  }),
  ormSetup<Transaction<KyselyShop>>("Kysely, transactional + journal", false, async (url) => {
    const db = new Kysely<KyselyShop>({ dialect: new PostgresDialect({ pool: quietPool(url) }) });
    return {
      binding: kyselyBinding(db),
      write: (trx, historyId) => trx.insertInto("effects").values({ history_id: historyId, setup: "kysely" }).execute(),
      close: () => db.destroy(),
    };
  }),
  ormSetup("Drizzle (node-postgres), transactional + journal", false, async (url) => {
    const pool = quietPool(url);
    const db = drizzle(pool);
    return {
      binding: drizzleBinding(db),
      write: (tx: Parameters<Parameters<typeof db.transaction>[0]>[0], historyId: string) =>
        tx.insert(drizzleEffects).values({ historyId, setup: "drizzle" }),
      close: () => pool.end(),
    };
  }),
  ormSetup<SequelizeTransaction>("Sequelize, transactional + journal", false, async (url) => {
    const sequelize = new Sequelize(url, { dialect: "postgres", logging: false, pool: { max: APP_POOL_SIZE, min: 0 } });
    const Effect = sequelize.define(
      "Effect",
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        historyId: { type: DataTypes.TEXT, field: "history_id" },
        setup: { type: DataTypes.TEXT },
      },
      { tableName: "effects", timestamps: false },
    );
    return {
      binding: sequelizeBinding(sequelize),
      write: (transaction, historyId) => Effect.create({ historyId, setup: "sequelize" }, { transaction }),
      close: () => sequelize.close(),
    };
  }),
];
