import { WebhookConfigurationError } from "../../webhooks/errors.js";

// A binding given the wrong object would otherwise fail on the first payment (or, worse, run the store's statements
// outside the transaction). Each binding checks what it was given when it is built, and says what it expected and
// what it got, recognising the objects most likely to be passed by mistake.

/** What `value` looks like, for an error message: "a TypeORM DataSource", "a pg Pool", "undefined", ... */
export function describeGiven(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object" && typeof value !== "function") return typeof value;
  const has = (name: string) => typeof (value as Record<string, unknown>)[name] === "function";
  const field = (name: string) => (value as Record<string, unknown>)[name];
  // Prisma's transaction client has `$transaction` too (nested transactions), but never `$disconnect`.
  if (has("$queryRawUnsafe")) {
    return has("$disconnect") ? "a PrismaClient" : "a Prisma transaction client (the tx of $transaction)";
  }
  if (has("createQueryRunner") && has("transaction")) return "a TypeORM DataSource";
  if (has("transaction") && field("connection") !== undefined && has("getRepository")) return "a TypeORM EntityManager";
  if (has("exec") && has("transaction") && field("waitReady") !== undefined) return "a PGlite database";
  if (has("connect") && typeof field("totalCount") === "number") return "a pg Pool";
  if (has("getConnection") && has("query")) return "a mysql2 Pool";
  if (has("connect") && has("query") && field("connectionParameters") !== undefined) return "a pg Client";
  if (has("raw") && has("transaction") && field("client") !== undefined) {
    return field("isTransaction") === true ? "a Knex transaction (the trx of knex.transaction)" : "a Knex instance";
  }
  if (has("getExecutor") && has("selectFrom")) {
    return field("isTransaction") === true ? "a Kysely transaction" : "a Kysely instance";
  }
  if (has("getDialect") && has("define")) return "a Sequelize instance";
  if (has("commit") && has("rollback") && field("sequelize") !== undefined) return "a Sequelize transaction";
  if (has("select") && has("transaction") && typeof field("session") === "object") return "a Drizzle database";
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "Object" && name !== "" ? `a ${name}` : "an object without them";
}

// What to do instead, for the objects passed by mistake most often.
const HINTS: Record<string, string> = {
  "a PrismaClient": "Use prismaBinding(prisma) from @kirimbayar/core/prisma.",
  "a Prisma transaction client (the tx of $transaction)":
    "Pass the PrismaClient itself: the binding opens the transaction, and handlers get its tx as ctx.transaction.",
  "a TypeORM DataSource": "Use typeormBinding(dataSource) from @kirimbayar/core/typeorm.",
  "a TypeORM EntityManager":
    "Pass the DataSource itself: the binding opens the transaction, and handlers get its EntityManager as ctx.transaction.",
  "a PGlite database": "Pass it as new PostgresIdempotencyStore({ client: db }) from @kirimbayar/core/postgres.",
  "a pg Pool": "Pass it as new PostgresIdempotencyStore({ pool }) from @kirimbayar/core/postgres.",
  "a pg Client": "Pass it as new PostgresIdempotencyStore({ client }) from @kirimbayar/core/postgres.",
  "a mysql2 Pool": "Pass it to MysqlIdempotencyStore from @kirimbayar/core/mysql.",
  "a Knex instance": "Use knexBinding(knex) from @kirimbayar/core/knex.",
  "a Knex transaction (the trx of knex.transaction)":
    "Pass the Knex instance itself: the binding opens the transaction, and handlers get its trx as ctx.transaction.",
  "a Kysely instance": "Use kyselyBinding(db) from @kirimbayar/core/kysely.",
  "a Kysely transaction":
    "Pass the Kysely instance itself: the binding opens the transaction, and handlers get it as ctx.transaction.",
  "a Sequelize instance": "Use sequelizeBinding(sequelize) from @kirimbayar/core/sequelize.",
  "a Sequelize transaction":
    "Pass the Sequelize instance itself: the binding opens the transaction, and handlers get it as ctx.transaction.",
  "a Drizzle database": "Use drizzleBinding(db) from @kirimbayar/core/drizzle.",
};

/** The error of a binding built on the wrong object: what it expected, what it got, and what to do instead. */
export function wrongObject(binding: string, expected: string, given: unknown): WebhookConfigurationError {
  const got = describeGiven(given);
  const hint = HINTS[got];
  return new WebhookConfigurationError(`${binding} expects ${expected}; got ${got}.${hint ? ` ${hint}` : ""}`);
}
