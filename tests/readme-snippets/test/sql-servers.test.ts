// The SQL the documents' snippets hand to a query call, prepared on the databases their snippets name: a real
// PostgreSQL (tests/postgres-server) and a real MariaDB (tests/mariadb-server), each with the shop's `orders` table as
// the guides describe it and kirimbayar's own tables (from the stores' schema functions). A statement that does not
// parse, names a column the guides' table lacks, or binds the other database's way fails here.
import { mysqlIdempotencySchema } from "@kirimbayar/core/mysql";
import { postgresIdempotencySchema } from "@kirimbayar/core/postgres";
import { startMariaDbServer, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readDocuments } from "./documents.js";
import { repo, snippetOf } from "./snippets.js";
import { dialectsOf, type SqlStatement, sqlStatements } from "./sql.js";

/** The shop's table as the guides use it: `orders`, looked up by `qris_history_id`, a text `status`. */
const ORDERS_TABLE = "CREATE TABLE orders (qris_history_id varchar(64) PRIMARY KEY, status varchar(32) NOT NULL)";

const statements = readDocuments(repo)
  .flatMap((doc) => doc.blocks)
  .filter((block) => (block.kind === "ts" || block.kind === "js") && block.skipReason === undefined)
  .map(snippetOf)
  .flatMap(sqlStatements);
const forDialect = (dialect: "postgres" | "mysql") =>
  statements.filter((statement) => dialectsOf(statement.snippet.code).has(dialect));
const where = (statement: SqlStatement) => `${statement.snippet.doc}:${statement.line}`;

let postgres: TestPostgresServer | undefined;
let mariadb: TestMariaDbServer | undefined;
let pgClient: pg.Client;
let mysqlConnection: mysql.Connection;

beforeAll(async () => {
  [postgres, mariadb] = await Promise.all([startPostgresServer(), startMariaDbServer()]);
  pgClient = new pg.Client({ connectionString: postgres.url, connectionTimeoutMillis: 5_000 });
  pgClient.on("error", () => {});
  await pgClient.connect();
  for (const statement of [ORDERS_TABLE, ...postgresIdempotencySchema()]) await pgClient.query(statement);
  mysqlConnection = await mysql.createConnection({ uri: mariadb.url, connectTimeout: 5_000 });
  mysqlConnection.on("error", () => {});
  for (const statement of [ORDERS_TABLE, ...mysqlIdempotencySchema()]) await mysqlConnection.query(statement);
}, 60_000);

afterAll(async () => {
  await pgClient?.end().catch(() => {});
  await mysqlConnection?.end().catch(() => {});
  await Promise.all([postgres?.destroy(), mariadb?.destroy()]);
});

/** PostgreSQL prepares queries and DML; DDL, which it cannot prepare, runs in a transaction rolled back. */
async function onPostgres(sql: string, name: string): Promise<void> {
  if (/^\s*(?:SELECT|INSERT|UPDATE|DELETE|WITH|VALUES)\b/i.test(sql)) {
    await pgClient.query(`PREPARE ${name} AS ${sql}`);
    await pgClient.query(`DEALLOCATE ${name}`);
    return;
  }
  await pgClient.query("BEGIN");
  try {
    await pgClient.query(sql);
  } finally {
    await pgClient.query("ROLLBACK");
  }
}

/** MariaDB prepares every statement the guides use, DDL included, and resolves its tables and columns doing so. */
async function onMariaDb(sql: string): Promise<void> {
  await mysqlConnection.query("PREPARE snippet FROM ?", [sql]);
  await mysqlConnection.query("DEALLOCATE PREPARE snippet");
}

const failureOf = (run: () => Promise<void>) =>
  run().then(
    () => undefined,
    (error: Error) => error.message,
  );

describe("the snippets' SQL on real servers", () => {
  it("finds statements for both databases", () => {
    expect(forDialect("postgres").length).toBeGreaterThanOrEqual(2);
    expect(forDialect("mysql").length).toBeGreaterThanOrEqual(1);
  });

  it("catches the other database's bind placeholders (the check below can fail)", async () => {
    const update = "UPDATE orders SET status = 'paid' WHERE qris_history_id = ";
    expect(await failureOf(() => onPostgres(`${update}?`, "wrong_binds"))).toMatch(/syntax error/);
    expect(await failureOf(() => onMariaDb(`${update}$1`))).toMatch(/Unknown column '\$1'/);
    expect(await failureOf(() => onPostgres(`${update}$1`, "right_binds"))).toBeUndefined();
    expect(await failureOf(() => onMariaDb(`${update}?`))).toBeUndefined();
  });

  it("prepare on PostgreSQL when their snippet is for PostgreSQL", async () => {
    const failures: string[] = [];
    for (const [index, statement] of forDialect("postgres").entries()) {
      const failure = await failureOf(() => onPostgres(statement.sql, `snippet_${index}`));
      if (failure !== undefined) failures.push(`${where(statement)}: ${failure}: ${statement.sql}`);
    }
    expect(failures).toEqual([]);
  });

  it("prepare on MariaDB when their snippet is for MySQL or MariaDB", async () => {
    const failures: string[] = [];
    for (const statement of forDialect("mysql")) {
      const failure = await failureOf(() => onMariaDb(statement.sql));
      if (failure !== undefined) failures.push(`${where(statement)}: ${failure}: ${statement.sql}`);
    }
    expect(failures).toEqual([]);
  });
});
