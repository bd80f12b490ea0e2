// The Knex, Kysely, Drizzle (mysql2) and Sequelize bindings on a real MariaDB: every guarantee of transactional
// handlers and the shared store contract (test/support/transactional-contract.ts) through MysqlIdempotencyStore,
// each handler writing in its library's own idiom through the delivery's transaction object.
import { startMariaDbServer, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import { afterAll, beforeAll } from "vitest";
import { MysqlIdempotencyStore } from "../src/mysql.js";
import {
  type DatabaseTarget,
  drizzleMysqlFixture,
  knexFixture,
  kyselyFixture,
  sequelizeFixture,
} from "./support/library-fixtures.js";
import { transactionalContract } from "./support/transactional-contract.js";

let server: TestMariaDbServer;

beforeAll(async () => {
  server = await startMariaDbServer();
}, 60_000);

afterAll(async () => {
  await server?.destroy();
});

const mariadb: DatabaseTarget = {
  dialect: "mysql",
  get port() {
    return server.port;
  },
  makeStore: (binding, table) => new MysqlIdempotencyStore({ binding, ...(table === undefined ? {} : { table }) }),
};

transactionalContract("Knex binding (Knex 3.3, mysql2) on MariaDB", () => knexFixture(mariadb));
transactionalContract("Kysely binding (Kysely 0.28, MysqlDialect) on MariaDB", () => kyselyFixture(mariadb));
transactionalContract("Drizzle binding (Drizzle 0.45, mysql2) on MariaDB", () => drizzleMysqlFixture(mariadb));
transactionalContract("Sequelize binding (Sequelize 6.37, mysql) on MariaDB", () => sequelizeFixture(mariadb));
