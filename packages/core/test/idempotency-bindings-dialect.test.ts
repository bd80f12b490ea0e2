// A binding to the other database is refused when the store is built, never at the first payment (where its
// statements would fail with a syntax error answered 503): for each of the six libraries, an object configured for
// PostgreSQL given to MysqlIdempotencyStore and one configured for MySQL given to PostgresIdempotencyStore. Nothing
// here connects: every library builds its client lazily, and each object points at a port nobody listens on.
import { PrismaMariaDb } from "@prisma/adapter-mariadb";
import { PrismaPg } from "@prisma/adapter-pg";
import { drizzle as drizzleMysql } from "drizzle-orm/mysql2";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import knexFactory from "knex";
import { Kysely, MysqlAdapter, MysqlDialect, PostgresDialect } from "kysely";
import mysql from "mysql2";
import pg from "pg";
import { Sequelize } from "sequelize";
import { DataSource } from "typeorm";
import { afterAll, describe, expect, it } from "vitest";
import { drizzleBinding } from "../src/drizzle.js";
import type { SqlBinding } from "../src/idempotency/sql/binding.js";
import { knexBinding } from "../src/knex.js";
import { kyselyBinding } from "../src/kysely.js";
import { MysqlIdempotencyStore } from "../src/mysql.js";
import { PostgresIdempotencyStore } from "../src/postgres.js";
import { prismaBinding } from "../src/prisma.js";
import { sequelizeBinding } from "../src/sequelize.js";
import { typeormBinding } from "../src/typeorm.js";
import { WebhookConfigurationError } from "../src/webhooks.js";
import { PrismaClient as PgPrismaClient } from "./prisma/generated/client.js";
import { PrismaClient as MysqlPrismaClient } from "./prisma/mysql/generated/client.js";

const nowhere = { host: "127.0.0.1", port: 1 };
const pgPool = new pg.Pool(nowhere);
const mysqlPool = mysql.createPool(nowhere);

const prismaPg = new PgPrismaClient({ adapter: new PrismaPg({ connectionString: "postgres://u@127.0.0.1:1/db" }) });
const prismaMysql = new MysqlPrismaClient({ adapter: new PrismaMariaDb(nowhere) });
const knexPg = knexFactory({ client: "pg", connection: nowhere });
const knexMysql = knexFactory({ client: "mysql2", connection: nowhere });
const kyselyPg = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: pgPool }) });
const kyselyMysql = new Kysely<unknown>({ dialect: new MysqlDialect({ pool: mysqlPool }) });
const sequelizePg = new Sequelize({ dialect: "postgres", ...nowhere, logging: false });
const sequelizeMysql = new Sequelize({ dialect: "mysql", ...nowhere, logging: false });
// Never initialised: typeormBinding takes the DataSource as the app declares it (the app initialises it later).
const dataSource = (type: "postgres" | "mysql" | "mariadb") => new DataSource({ type, ...nowhere });

afterAll(async () => {
  await Promise.all([prismaPg.$disconnect(), prismaMysql.$disconnect()]);
  await Promise.all([knexPg.destroy(), knexMysql.destroy(), sequelizePg.close(), sequelizeMysql.close()]);
  await pgPool.end();
  await new Promise((resolve) => mysqlPool.end(resolve));
});

/** The WebhookConfigurationError's message `build` throws. */
function refusal(build: () => unknown): string {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookConfigurationError);
    return (error as Error).message;
  }
  throw new Error("built without complaint");
}

// Each library's binding over a PostgreSQL-configured and a MySQL-configured object, and what the refusal names.
const cases: {
  library: string;
  postgres: () => SqlBinding<unknown>;
  mysql: () => SqlBinding<unknown>;
  foundPostgres: string;
  foundMysql: string;
}[] = [
  {
    library: "prisma",
    postgres: () => prismaBinding(prismaPg) as SqlBinding<unknown>,
    mysql: () => prismaBinding(prismaMysql) as SqlBinding<unknown>,
    foundPostgres: "prisma, @prisma/adapter-pg",
    foundMysql: "prisma, @prisma/adapter-mariadb",
  },
  {
    library: "typeorm",
    postgres: () => typeormBinding(dataSource("postgres")) as SqlBinding<unknown>,
    mysql: () => typeormBinding(dataSource("mysql")) as SqlBinding<unknown>,
    foundPostgres: 'typeorm, type "postgres"',
    foundMysql: 'typeorm, type "mysql"',
  },
  {
    library: "knex",
    postgres: () => knexBinding(knexPg) as SqlBinding<unknown>,
    mysql: () => knexBinding(knexMysql) as SqlBinding<unknown>,
    foundPostgres: 'knex, client "pg"',
    foundMysql: 'knex, client "mysql2"',
  },
  {
    library: "kysely",
    postgres: () => kyselyBinding(kyselyPg) as SqlBinding<unknown>,
    mysql: () => kyselyBinding(kyselyMysql) as SqlBinding<unknown>,
    foundPostgres: "kysely, PostgresAdapter",
    foundMysql: "kysely, MysqlAdapter",
  },
  {
    library: "drizzle",
    postgres: () => drizzleBinding(drizzlePg(pgPool)) as SqlBinding<unknown>,
    mysql: () => drizzleBinding(drizzleMysql(mysqlPool)) as SqlBinding<unknown>,
    foundPostgres: "drizzle, drizzle-orm/node-postgres",
    foundMysql: "drizzle, drizzle-orm/mysql2",
  },
  {
    library: "sequelize",
    postgres: () => sequelizeBinding(sequelizePg) as SqlBinding<unknown>,
    mysql: () => sequelizeBinding(sequelizeMysql) as SqlBinding<unknown>,
    foundPostgres: 'sequelize, dialect "postgres"',
    foundMysql: 'sequelize, dialect "mysql"',
  },
];

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe.each(cases)("$library", ({ postgres, mysql: mysqlBinding, foundPostgres, foundMysql }) => {
  it("a binding to PostgreSQL given to MysqlIdempotencyStore is refused when the store is built", () => {
    expect(refusal(() => new MysqlIdempotencyStore({ binding: postgres() }))).toBe(
      `MysqlIdempotencyStore got a binding to a PostgreSQL database (${foundPostgres}): use PostgresIdempotencyStore from @kirimbayar/core/postgres.`,
    );
  });

  it("a binding to MySQL given to PostgresIdempotencyStore is refused when the store is built", () => {
    expect(refusal(() => new PostgresIdempotencyStore({ binding: mysqlBinding() }))).toMatch(
      new RegExp(
        `^PostgresIdempotencyStore got a binding to a MySQL database \\(${escaped(foundMysql)}\\): use MysqlIdempotencyStore from @kirimbayar/core/mysql\\.$`,
      ),
    );
  });

  it("the matching pairs are built", () => {
    expect(postgres().dialect).toBe("postgres");
    expect(mysqlBinding().dialect).toBe("mysql");
    expect(new PostgresIdempotencyStore({ binding: postgres() })).toBeInstanceOf(PostgresIdempotencyStore);
    expect(new MysqlIdempotencyStore({ binding: mysqlBinding() })).toBeInstanceOf(MysqlIdempotencyStore);
  });
});

describe("what each library tells", () => {
  it("TypeORM's mariadb type is MySQL's dialect", () => {
    expect(refusal(() => new PostgresIdempotencyStore({ binding: typeormBinding(dataSource("mariadb")) }))).toMatch(
      /a MySQL database \(typeorm, type "mariadb"\)/,
    );
    expect(new MysqlIdempotencyStore({ binding: typeormBinding(dataSource("mariadb")) })).toBeInstanceOf(
      MysqlIdempotencyStore,
    );
  });

  it("an extended Prisma client keeps its database", () => {
    const extended = prismaMysql.$extends({});
    expect(prismaBinding(extended).dialect).toBe("mysql");
    expect(refusal(() => new PostgresIdempotencyStore({ binding: prismaBinding(extended) }))).toMatch(
      /\(prisma, @prisma\/adapter-mariadb\)/,
    );
  });

  it("Knex's client given by another name, and Kysely's adapter extended by a third-party dialect", async () => {
    const knexPostgres = knexFactory({ client: "postgres", connection: nowhere });
    const knexPostgresql = knexFactory({ client: "postgresql", connection: nowhere });
    try {
      expect(knexBinding(knexPostgres).dialect).toBe("postgres");
      expect(refusal(() => new MysqlIdempotencyStore({ binding: knexBinding(knexPostgresql) }))).toMatch(
        /\(knex, client "postgresql"\)/,
      );
    } finally {
      await Promise.all([knexPostgres.destroy(), knexPostgresql.destroy()]);
    }
    // A dialect of another package over MySQL reuses (and may extend) Kysely's MysqlAdapter.
    class VendorMysqlAdapter extends MysqlAdapter {}
    const vendor = new Kysely<unknown>({
      dialect: {
        createAdapter: () => new VendorMysqlAdapter(),
        createDriver: () => new MysqlDialect({ pool: mysqlPool }).createDriver(),
        createIntrospector: (db) => new MysqlDialect({ pool: mysqlPool }).createIntrospector(db),
        createQueryCompiler: () => new MysqlDialect({ pool: mysqlPool }).createQueryCompiler(),
      },
    });
    expect(refusal(() => new PostgresIdempotencyStore({ binding: kyselyBinding(vendor) }))).toMatch(
      /\(kysely, MysqlAdapter\)/,
    );
  });

  it("a binding that does not say its database (hand-written) is not checked", () => {
    const handWritten: SqlBinding<unknown> = {
      library: "custom",
      transaction: async () => {},
      query: async () => ({ rows: [] }),
      abandon: () => {},
    };
    expect(new PostgresIdempotencyStore({ binding: handWritten })).toBeInstanceOf(PostgresIdempotencyStore);
    expect(new MysqlIdempotencyStore({ binding: handWritten })).toBeInstanceOf(MysqlIdempotencyStore);
  });
});
