// The narrowest window of a handler past its time limit (test/support/late-write.ts), on a real MariaDB through
// MysqlIdempotencyStore: the handler writes again through ctx.transaction while its library's ROLLBACK is on its way,
// and the write must never commit. mysql2's connections are hooked so that the write goes out right after the
// ROLLBACK. After it, the same event is delivered again and applied once: its lock did not stay with the connection.
import { startMariaDbServer, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import { sql as drizzleSql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/mysql2";
import knexFactory, { type Knex } from "knex";
import { Kysely, MysqlDialect, sql } from "kysely";
import mysql from "mysql2";
import { DataTypes, Sequelize } from "sequelize";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drizzleBinding } from "../src/drizzle.js";
import type { SqlBinding } from "../src/idempotency/sql/binding.js";
import { knexBinding } from "../src/knex.js";
import { kyselyBinding } from "../src/kysely.js";
import { MysqlIdempotencyStore } from "../src/mysql.js";
import { sequelizeBinding } from "../src/sequelize.js";
import { createWebhookReceiver, tokenVerifier } from "../src/webhooks.js";
import { lateWriteAtRollback, statementSent } from "./support/late-write.js";
import { qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

let server: TestMariaDbServer;
let admin: mysql.Pool;

/** Tells the late-write hook every statement `connection` sends (mysql2's callback connection: query and execute). */
function hooked<C extends mysql.Connection>(connection: C): C {
  for (const method of ["query", "execute"] as const) {
    const original = connection[method] as (...args: unknown[]) => unknown;
    (connection as unknown as Record<string, unknown>)[method] = function (this: C, ...args: unknown[]) {
      const first = args[0] as string | { sql?: string } | undefined;
      statementSent(typeof first === "string" ? first : first?.sql);
      return original.apply(this, args);
    };
  }
  return connection;
}

const mysqlConfig = () => ({ host: "127.0.0.1", port: server.port, user: "root", database: "kirimbayar" });
function hookedPool(): mysql.Pool {
  const pool = mysql.createPool({ ...mysqlConfig(), connectionLimit: 2 });
  pool.on("connection", (connection) => hooked(connection));
  return pool;
}

beforeAll(async () => {
  server = await startMariaDbServer();
  admin = mysql.createPool({ ...mysqlConfig(), connectionLimit: 2 });
  for (const library of ["knex", "kysely", "drizzle", "sequelize"]) {
    await admin
      .promise()
      .query(`CREATE TABLE orders_${library} (id varchar(100) PRIMARY KEY, paid int NOT NULL DEFAULT 0) ENGINE=InnoDB`);
  }
}, 60_000);

afterAll(async () => {
  await admin?.promise().end();
  await server?.destroy();
});

const paidCount = (library: string) => async (id: string) => {
  const [rows] = await admin.promise().query(`SELECT paid FROM orders_${library} WHERE id = ?`, [id]);
  return Number((rows as { paid?: number }[])[0]?.paid ?? 0);
};

/** The late write through `binding`, then the same event delivered again: applied once (its lock was freed). */
async function lateWriteThenRedelivery<Tx>(
  library: string,
  binding: SqlBinding<Tx>,
  markPaid: (tx: Tx, id: string) => Promise<unknown>,
) {
  const store = new MysqlIdempotencyStore({ binding, table: `events_${library}` });
  const id = `${library}-late`;
  const result = await lateWriteAtRollback(store, id, markPaid, paidCount(library));
  const retry = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: "retry", in: "query" })],
    idempotency: { store, transactional: true },
    logger: { warn: () => {}, error: () => {} },
  }).on("payment.success", (_event, ctx) => markPaid(ctx.transaction, id));
  const request = webhookRequest({
    url: "/hook?token=retry",
    rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })),
  });
  const retried = (await retry.handle(request)).status;
  return { ...result, retried, paidAfterRetry: await paidCount(library)(id) };
}

const applied = { status: 500, late: "refused", paid: 0, retried: 200, paidAfterRetry: 1 };

describe("a handler writing again as its library rolls back after the time limit, on MariaDB", () => {
  it("Knex (mysql2): the write is refused; the redelivery applies the event once", async () => {
    const pool = hookedPool();
    const knex = knexFactory({
      client: "mysql2",
      // A native mysql2 pool (Knex 3.3 wraps it); typed by Knex for the drivers' own pool types.
      connectionPool: pool as unknown as NonNullable<Knex.Config["connectionPool"]>,
      log: { warn() {}, error() {}, deprecate() {}, debug() {} },
    });
    const result = await lateWriteThenRedelivery("knex", knexBinding(knex), (trx, id) =>
      trx("orders_knex")
        .insert({ id, paid: 1 })
        .onConflict("id")
        .merge({ paid: trx.raw("paid + 1") }),
    );
    expect(result).toEqual(applied);
    await knex.destroy();
    await pool.promise().end();
  });

  it("Kysely (MysqlDialect): the write waits behind the rollback, then is refused; the redelivery applies it once", async () => {
    const db = new Kysely<{ orders_kysely: { id: string; paid: number } }>({
      dialect: new MysqlDialect({ pool: hookedPool() }),
    });
    const result = await lateWriteThenRedelivery("kysely", kyselyBinding(db), (trx, id) =>
      trx.insertInto("orders_kysely").values({ id, paid: 1 }).onDuplicateKeyUpdate({ paid: sql`paid + 1` }).execute(),
    );
    expect(result).toEqual(applied);
    await db.destroy();
  });

  it("Drizzle (mysql2): the write fails on the closed connection; the redelivery applies it once", async () => {
    const pool = hookedPool();
    const db = drizzle(pool);
    const result = await lateWriteThenRedelivery("drizzle", drizzleBinding(db), (tx, id) =>
      tx.execute(
        drizzleSql`INSERT INTO orders_drizzle (id, paid) VALUES (${id}, 1) ON DUPLICATE KEY UPDATE paid = paid + 1`,
      ),
    );
    expect(result).toEqual(applied);
    await pool.promise().end();
  });

  it("Sequelize (mysql): the write is refused; the redelivery applies it once", async () => {
    const sequelize = new Sequelize({
      dialect: "mysql",
      dialectModule: {
        ...mysql,
        createConnection: (config: mysql.ConnectionOptions) => hooked(mysql.createConnection(config)),
      },
      ...mysqlConfig(),
      username: "root",
      logging: false,
      pool: { max: 2, min: 0 },
    });
    const Order = sequelize.define(
      "Order",
      { id: { type: DataTypes.STRING(100), primaryKey: true }, paid: { type: DataTypes.INTEGER } },
      { tableName: "orders_sequelize", timestamps: false },
    );
    const result = await lateWriteThenRedelivery("sequelize", sequelizeBinding(sequelize), async (transaction, id) => {
      await Order.bulkCreate([{ id, paid: 0 }], { ignoreDuplicates: true, transaction });
      await Order.increment("paid", { by: 1, where: { id }, transaction });
    });
    expect(result).toEqual(applied);
    await sequelize.close();
  });
});
