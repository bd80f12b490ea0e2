// The Knex, Kysely, Drizzle and Sequelize bindings without a database: built on the wrong object they fail at once
// with a WebhookConfigurationError naming what they expected (never on the first payment); ctx.transaction is typed
// as the library's transaction object with no cast; and the placeholder rewriting each library needs.
import { drizzle as drizzleMysql } from "drizzle-orm/mysql2";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import knexFactory, { type Knex } from "knex";
import { Kysely, PostgresDialect, type Transaction } from "kysely";
import mysql from "mysql2";
import pg from "pg";
import { Sequelize, type Transaction as SequelizeTransaction } from "sequelize";
import { afterAll, describe, expect, expectTypeOf, it } from "vitest";
import { drizzleBinding } from "../src/drizzle.js";
import { knexPositional } from "../src/idempotency/bindings/knex/positional.js";
import { numberedPlaceholders } from "../src/idempotency/bindings/sequelize/numbered.js";
import { knexBinding } from "../src/knex.js";
import { kyselyBinding } from "../src/kysely.js";
import { PostgresIdempotencyStore } from "../src/postgres.js";
import { sequelizeBinding } from "../src/sequelize.js";
import { createWebhookReceiver, tokenVerifier, WebhookConfigurationError } from "../src/webhooks.js";

// Nothing here connects: every object points at a port nobody listens on.
const pool = new pg.Pool({ host: "127.0.0.1", port: 1 });
const knexPg = knexFactory({ client: "pg", connection: { host: "127.0.0.1", port: 1 } });
interface Shop {
  orders: { id: string; paid: number };
}
const kysely = new Kysely<Shop>({ dialect: new PostgresDialect({ pool }) });
const sequelizePg = new Sequelize({ dialect: "postgres", host: "127.0.0.1", port: 1, logging: false });
const mysqlPool = mysql.createPool({ host: "127.0.0.1", port: 1 });

afterAll(async () => {
  await knexPg.destroy();
  await sequelizePg.close();
  await pool.end();
  await new Promise((resolve) => mysqlPool.end(resolve));
});

/** The WebhookConfigurationError `build` throws. */
function refusal(build: () => unknown): WebhookConfigurationError {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookConfigurationError);
    return error as WebhookConfigurationError;
  }
  throw new Error("built without complaint");
}

describe("a binding built on the wrong object", () => {
  it("knexBinding refuses a pg Pool, a Knex transaction and a Knex for another database", () => {
    expect(refusal(() => knexBinding(pool as never)).message).toMatch(
      /knexBinding expects a Knex instance for PostgreSQL .*; got a pg Pool/,
    );
    const transactionLike = Object.assign(() => {}, { transaction() {}, raw() {}, isTransaction: true });
    expect(refusal(() => knexBinding(transactionLike as never)).message).toMatch(/knexBinding expects a Knex instance/);
    // (Shaped as Knex for SQL Server: the driver of another database is not installed here.)
    const mssql = Object.assign(() => {}, { transaction() {}, raw() {}, client: { dialect: "mssql" } });
    expect(refusal(() => knexBinding(mssql as never)).message).toMatch(/got a Knex instance for mssql/);
    expect(refusal(() => knexBinding(undefined as never)).message).toMatch(/got undefined/);
  });

  it("kyselyBinding refuses a Knex instance, a Sequelize and a Kysely transaction", async () => {
    expect(refusal(() => kyselyBinding(knexPg as never)).message).toMatch(/kyselyBinding expects a Kysely instance/);
    expect(refusal(() => kyselyBinding(sequelizePg as never)).message).toMatch(/got a Sequelize/);
    const transactionLike = { transaction() {}, getExecutor() {}, isTransaction: true };
    expect(refusal(() => kyselyBinding(transactionLike as never)).message).toMatch(/not a transaction/);
  });

  it("drizzleBinding refuses a pg Pool, a Kysely, and Drizzle over a single connection", () => {
    expect(refusal(() => drizzleBinding(pool as never)).message).toMatch(
      /drizzleBinding expects a Drizzle database over a pg Pool .*; got a pg Pool/,
    );
    expect(refusal(() => drizzleBinding(kysely as never)).message).toMatch(/got a Kysely/);
    const overClient = drizzlePg(new pg.Client({ host: "127.0.0.1", port: 1 }));
    expect(refusal(() => drizzleBinding(overClient)).message).toMatch(
      /got a Drizzle database over a pg Client\. Create it over a pool/,
    );
    const overConnection = drizzleMysql(mysql.createConnection({ host: "127.0.0.1", port: 1 }));
    overConnection.$client.on("error", () => {});
    expect(refusal(() => drizzleBinding(overConnection)).message).toMatch(/got a Drizzle database over/);
    overConnection.$client.destroy();
  });

  it("sequelizeBinding refuses a Knex instance and a Sequelize for another database", () => {
    expect(refusal(() => sequelizeBinding(knexPg as never)).message).toMatch(
      /sequelizeBinding expects a Sequelize instance for PostgreSQL .*; got a Knex instance\. Use knexBinding/,
    );
    // (Shaped as Sequelize for SQLite: its driver is not installed here.)
    const sqlite = { transaction() {}, query() {}, getDialect: () => "sqlite" };
    expect(refusal(() => sequelizeBinding(sqlite as never)).message).toMatch(/got a Sequelize instance for "sqlite"/);
    // Its mariadb dialect (the `mariadb` driver) is untested: refused, with "mysql" named for MariaDB servers.
    const mariadb = { transaction() {}, query() {}, getDialect: () => "mariadb" };
    expect(refusal(() => sequelizeBinding(mariadb as never)).message).toMatch(
      /\("mysql", with mysql2\); got a Sequelize instance for "mariadb"/,
    );
  });

  it("names the object given by mistake and what to do instead", () => {
    expect(refusal(() => drizzleBinding(knexPg as never)).message).toMatch(
      /got a Knex instance\. Use knexBinding\(knex\) from @kirimbayar\/core\/knex\./,
    );
    expect(refusal(() => sequelizeBinding(kysely as never)).message).toMatch(
      /got a Kysely instance\. Use kyselyBinding\(db\) from @kirimbayar\/core\/kysely\./,
    );
    expect(refusal(() => knexBinding(drizzlePg(pool) as never)).message).toMatch(
      /got a Drizzle database\. Use drizzleBinding\(db\)/,
    );
    expect(refusal(() => kyselyBinding(sequelizePg as never)).message).toMatch(
      /got a Sequelize instance\. Use sequelizeBinding\(sequelize\)/,
    );
    // A Drizzle database on a driver the binding does not serve (shaped as drizzle-orm/postgres-js's).
    const session = Object.create({ constructor: { [Symbol.for("drizzle:entityKind")]: "PostgresJsSession" } });
    const postgresJs = { transaction() {}, session };
    expect(refusal(() => drizzleBinding(postgresJs as never)).message).toMatch(
      /got a Drizzle database on PostgresJsSession\./,
    );
  });

  it("accepts the right objects without connecting", () => {
    expect(knexBinding(knexPg).library).toBe("knex");
    expect(kyselyBinding(kysely).library).toBe("kysely");
    expect(drizzleBinding(drizzlePg(pool)).library).toBe("drizzle");
    expect(drizzleBinding(drizzleMysql(mysqlPool)).library).toBe("drizzle");
    expect(sequelizeBinding(sequelizePg).library).toBe("sequelize");
  });
});

describe("ctx.transaction is the library's transaction object, typed", () => {
  const receiverOn = <Tx>(store: PostgresIdempotencyStore<Tx>) =>
    createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: "t", in: "query" })],
      idempotency: { store, transactional: true },
    });

  it("for each binding, with no cast in the handler", () => {
    receiverOn(new PostgresIdempotencyStore({ binding: knexBinding(knexPg) })).onAny((_event, ctx) => {
      expectTypeOf(ctx.transaction).toEqualTypeOf<Knex.Transaction>();
    });
    receiverOn(new PostgresIdempotencyStore({ binding: kyselyBinding(kysely) })).onAny(async (_event, ctx) => {
      expectTypeOf(ctx.transaction).toEqualTypeOf<Transaction<Shop>>();
      // Typed by the shop's own DB: a table it does not have would not compile.
      if (Math.random() > 2) await ctx.transaction.updateTable("orders").set({ paid: 1 }).execute();
    });
    const db = drizzlePg(pool);
    receiverOn(new PostgresIdempotencyStore({ binding: drizzleBinding(db) })).onAny((_event, ctx) => {
      expectTypeOf(ctx.transaction).toEqualTypeOf<Parameters<Parameters<typeof db.transaction>[0]>[0]>();
    });
    receiverOn(new PostgresIdempotencyStore({ binding: sequelizeBinding(sequelizePg) })).onAny((_event, ctx) => {
      expectTypeOf(ctx.transaction).toEqualTypeOf<SequelizeTransaction>();
    });
  });
});

describe("placeholders", () => {
  it("Knex: $n become ?, a value used twice is bound twice, a literal ? is escaped", () => {
    expect(knexPositional("SELECT $1::text, $2, $1 WHERE j ? 'k'", ["a", 2])).toEqual({
      sql: "SELECT ?::text, ?, ? WHERE j \\? 'k'",
      bindings: ["a", 2, "a"],
    });
    expect(() => knexPositional("SELECT $3", ["a"])).toThrow(RangeError);
  });

  it("Sequelize on MySQL: ? become $1, $2 … in order", () => {
    expect(numberedPlaceholders("INSERT INTO t VALUES (?, ?, ?)")).toBe("INSERT INTO t VALUES ($1, $2, $3)");
  });
});
