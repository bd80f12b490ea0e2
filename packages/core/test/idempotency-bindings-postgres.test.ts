// The Knex, Kysely, Drizzle (node-postgres) and Sequelize bindings on a real PostgreSQL server: every guarantee of
// transactional handlers and the shared store contract (test/support/transactional-contract.ts), each handler
// writing in its library's own idiom through the delivery's transaction object, typed with no cast.
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import knexFactory, { type Knex } from "knex";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { knexBinding } from "../src/knex.js";
import { PostgresIdempotencyStore, postgresIdempotencySchema } from "../src/postgres.js";
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

describe("the store's table in Knex's migrations (the README's migration)", () => {
  it("is created by knex.migrate.latest() and dropped by rollback; the store then works on it", async () => {
    const knex = knexFactory({ client: "pg", connection: server.url, pool: { min: 0, max: 2 } });
    // The README's migration file, given to Knex's migrator as it would load it from the migrations directory.
    const migration = {
      async up(db: Knex): Promise<void> {
        for (const statement of postgresIdempotencySchema()) await db.raw(statement);
      },
      async down(db: Knex): Promise<void> {
        await db.raw('DROP TABLE "kirimbayar_idempotency"');
      },
    };
    const migrationSource = {
      getMigrations: async () => ["20261127000000_kirimbayar_idempotency"],
      getMigrationName: (name: string) => name,
      getMigration: async () => migration,
    };
    const exists = async () => (await knex.schema.hasTable("kirimbayar_idempotency")) as boolean;
    try {
      await knex.migrate.latest({ migrationSource });
      expect(await exists()).toBe(true);
      const store = new PostgresIdempotencyStore({ binding: knexBinding(knex) });
      expect(await store.claim("migrated", "owner", 10_000)).toEqual({ state: "claimed", attempt: 1 });
      await knex.migrate.rollback({ migrationSource });
      expect(await exists()).toBe(false);
    } finally {
      await knex.destroy();
    }
  });
});
