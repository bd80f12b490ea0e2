// The Knex, Kysely, Drizzle (node-postgres) and Sequelize bindings on a real PostgreSQL server: every guarantee of
// transactional handlers and the shared store contract (test/support/transactional-contract.ts), each handler
// writing in its library's own idiom through the delivery's transaction object, typed with no cast.
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import { afterAll, beforeAll } from "vitest";
import { PostgresIdempotencyStore } from "../src/postgres.js";
import {
  type DatabaseTarget,
  drizzlePgFixture,
  knexFixture,
  kyselyFixture,
  sequelizeFixture,
} from "./support/library-fixtures.js";
import { transactionalContract } from "./support/transactional-contract.js";

let server: TestPostgresServer;

beforeAll(async () => {
  server = await startPostgresServer();
}, 60_000);

afterAll(async () => {
  await server?.destroy();
});

const postgres: DatabaseTarget = {
  dialect: "postgres",
  get port() {
    return server.port;
  },
  makeStore: (binding, table) => new PostgresIdempotencyStore({ binding, ...(table === undefined ? {} : { table }) }),
};

transactionalContract("Knex binding (Knex 3.3, pg)", () => knexFixture(postgres));
transactionalContract("Kysely binding (Kysely 0.28, PostgresDialect)", () => kyselyFixture(postgres));
transactionalContract("Drizzle binding (Drizzle 0.45, node-postgres)", () => drizzlePgFixture(postgres));
transactionalContract("Sequelize binding (Sequelize 6.37, postgres)", () => sequelizeFixture(postgres));
