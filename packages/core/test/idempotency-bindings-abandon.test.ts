// The narrowest window of a handler past its time limit, on a real PostgreSQL: the handler writes again through
// ctx.transaction while its library's ROLLBACK is on its way. Kysely and Drizzle would send that write on the same
// connection after the ROLLBACK, outside any transaction, where it commits (both tests fail with abandon() a
// no-op); Knex and Sequelize refuse it on their own, and their bindings' closing of the connection is for what a
// ROLLBACK leaves (a statement still running, MySQL's session locks: see idempotency-bindings-mysql.test.ts). The
// driver is hooked so that the write goes out right after the ROLLBACK, before its answer can come back; the same
// on MariaDB in idempotency-bindings-abandon-mysql.test.ts.
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import { drizzle } from "drizzle-orm/node-postgres";
import knexFactory from "knex";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { DataTypes, Sequelize } from "sequelize";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drizzleBinding } from "../src/drizzle.js";
import type { SqlBinding } from "../src/idempotency/sql/binding.js";
import { knexBinding } from "../src/knex.js";
import { kyselyBinding } from "../src/kysely.js";
import { PostgresIdempotencyStore } from "../src/postgres.js";
import { sequelizeBinding } from "../src/sequelize.js";
import { lateWriteAtRollback, statementSent } from "./support/late-write.js";

let server: TestPostgresServer;
let admin: pg.Pool;

/** pg's Client, telling every statement it sends to the late-write hook first. */
class HookedClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: pg's query is overloaded; the hook passes every form through.
  override query(...args: any[]): any {
    statementSent(typeof args[0] === "string" ? args[0] : args[0]?.text);
    // biome-ignore lint/suspicious/noExplicitAny: see above.
    return (super.query as any)(...args);
  }
}

const pgConfig = () => ({ host: "127.0.0.1", port: server.port, user: "postgres", database: "postgres" });
function hookedPool(): pg.Pool {
  const pool = new pg.Pool({ ...pgConfig(), max: 2, Client: HookedClient });
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}

beforeAll(async () => {
  server = await startPostgresServer();
  admin = new pg.Pool({ ...pgConfig(), max: 2 });
  // Its idle connections may outlive end() by a moment, and the server's shutdown then ends them with an error.
  admin.on("error", () => {});
  for (const library of ["knex", "kysely", "drizzle", "sequelize"]) {
    await admin.query(`CREATE TABLE orders_${library} (id text PRIMARY KEY, paid integer NOT NULL DEFAULT 0)`);
  }
}, 60_000);

afterAll(async () => {
  await admin?.end();
  await server?.destroy();
});

const paidCount = (library: string) => async (id: string) =>
  Number((await admin.query(`SELECT paid FROM orders_${library} WHERE id = $1`, [id])).rows[0]?.paid ?? 0);

/** The late write of test/support/late-write.ts through `binding`, on this library's own tables. */
const lateWriteAtRollbackOf = <Tx>(
  library: string,
  binding: SqlBinding<Tx>,
  markPaid: (tx: Tx, id: string) => Promise<unknown>,
) =>
  lateWriteAtRollback(
    new PostgresIdempotencyStore({ binding, table: `events_${library}` }),
    `${library}-late`,
    markPaid,
    paidCount(library),
  );

describe("a handler writing again as its library rolls back after the time limit", () => {
  it("Knex: the write is refused, nothing commits", async () => {
    const pool = hookedPool();
    const knex = knexFactory({
      client: "pg",
      connectionPool: pool,
      log: { warn() {}, error() {}, deprecate() {}, debug() {} },
    });
    const result = await lateWriteAtRollbackOf("knex", knexBinding(knex), (trx, id) =>
      trx("orders_knex")
        .insert({ id, paid: 1 })
        .onConflict("id")
        .merge({ paid: trx.raw("orders_knex.paid + 1") }),
    );
    expect(result).toEqual({ status: 500, late: "refused", paid: 0 });
    await knex.destroy();
    await pool.end();
  });

  it("Kysely: the write waits behind the rollback, then fails; nothing commits", async () => {
    const db = new Kysely<{ orders_kysely: { id: string; paid: number } }>({
      dialect: new PostgresDialect({ pool: hookedPool() }),
    });
    const result = await lateWriteAtRollbackOf("kysely", kyselyBinding(db), (trx, id) =>
      trx
        .insertInto("orders_kysely")
        .values({ id, paid: 1 })
        .onConflict((conflict) =>
          conflict.column("id").doUpdateSet((eb) => ({ paid: eb("orders_kysely.paid", "+", 1) })),
        )
        .execute(),
    );
    expect(result).toEqual({ status: 500, late: "refused", paid: 0 });
    await db.destroy();
  });

  it("Drizzle: the write fails on the closed connection; nothing commits", async () => {
    const pool = hookedPool();
    const db = drizzle(pool);
    const result = await lateWriteAtRollbackOf("drizzle", drizzleBinding(db), (tx, id) =>
      tx.execute(
        `INSERT INTO orders_drizzle (id, paid) VALUES ('${id}', 1) ON CONFLICT (id) DO UPDATE SET paid = orders_drizzle.paid + 1`,
      ),
    );
    expect(result).toEqual({ status: 500, late: "refused", paid: 0 });
    await pool.end();
  });

  it("Sequelize: the write is refused, nothing commits", async () => {
    const sequelize = new Sequelize({
      dialect: "postgres",
      dialectModule: { ...pg, Client: HookedClient },
      ...pgConfig(),
      username: "postgres",
      logging: false,
      pool: { max: 2, min: 0 },
    });
    const Order = sequelize.define(
      "Order",
      { id: { type: DataTypes.TEXT, primaryKey: true }, paid: { type: DataTypes.INTEGER } },
      { tableName: "orders_sequelize", timestamps: false },
    );
    const result = await lateWriteAtRollbackOf("sequelize", sequelizeBinding(sequelize), async (transaction, id) => {
      await Order.bulkCreate([{ id, paid: 0 }], { ignoreDuplicates: true, transaction });
      await Order.increment("paid", { by: 1, where: { id }, transaction });
    });
    expect(result).toEqual({ status: 500, late: "refused", paid: 0 });
    await sequelize.close();
  });
});
