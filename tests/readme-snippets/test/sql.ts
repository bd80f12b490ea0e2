// The SQL a snippet hands to a database library, and the database the snippet is written for. A statement's bind
// placeholders must be the ones its driver takes: `$1` for `pg` (and TypeORM, Prisma's raw calls and pg-boss on
// PostgreSQL), `?` for `mysql2` (and those libraries on MySQL or MariaDB); Knex's `raw` takes `?` on every database.
import ts from "typescript";
import type { Snippet } from "./snippets.js";

export type Dialect = "postgres" | "mysql";

/** What names a snippet's database, in its code or its comments (a comment offering "MySQL: …" counts). */
const SIGNALS: Readonly<Record<Dialect, readonly RegExp[]>> = {
  postgres: [
    /from\s+["']pg["']/,
    /\bpg\.(?:Pool|Client|PoolClient)\b/,
    /\bPostgres(?:IdempotencyStore|DeliveryJournal|Dialect)\b/,
    /\bpostgresIdempotencySchema\b/,
    /\btype:\s*"postgres"/,
    /\bclient:\s*"(?:pg|postgres(?:ql)?)"/,
    /postgres(?:ql)?:\/\//,
    /drizzle-orm\/node-postgres|drizzle-orm\/pg-core/,
    /\bPrismaPg\b/,
    /\bpg-boss\b|\bPgBoss\b/,
  ],
  mysql: [
    /\bmysql2\b/,
    /\bMysql(?:IdempotencyStore|DeliveryJournal|Dialect)\b/,
    /\bmysqlIdempotencySchema\b/,
    /\btype:\s*"(?:mysql|mariadb)"/,
    /\bdialect:\s*"(?:mysql|mariadb)"/,
    /\bclient:\s*"mysql2?"/,
    /(?:mysql|mariadb):\/\//,
    /drizzle-orm\/mysql/,
    /\bPrismaMariaDb\b/,
    /\b(?:MySQL|MariaDB)\b/,
  ],
};

export function dialectsOf(code: string): Set<Dialect> {
  const found = new Set<Dialect>();
  for (const dialect of ["postgres", "mysql"] as const) {
    if (SIGNALS[dialect].some((signal) => signal.test(code))) found.add(dialect);
  }
  return found;
}

/** Methods that take SQL text as their first argument, in the libraries the guides use. */
const QUERY_METHODS = new Set(["query", "execute", "executeSql", "$queryRawUnsafe", "$executeRawUnsafe", "raw"]);
/** Knex's `raw` (and `db.raw`): `?` bindings whatever the database. */
const KNEX_METHODS = new Set(["raw", "whereRaw", "havingRaw", "orderByRaw", "joinRaw"]);
const LOOKS_LIKE_SQL = /^\s*(?:SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|DROP|ALTER|TRUNCATE|LOCK|SET|BEGIN|COMMIT)\b/i;

export interface SqlStatement {
  readonly snippet: Snippet;
  /** Document line of the statement. */
  readonly line: number;
  readonly sql: string;
  /** Knex's `?` bindings, whatever the database. */
  readonly knex: boolean;
}

/** The SQL strings a snippet passes to a query call (`query`, `execute`, `$executeRawUnsafe`, Knex's `raw`, …). */
export function sqlStatements(snippet: Snippet): SqlStatement[] {
  const file = ts.createSourceFile("snippet.ts", snippet.code, ts.ScriptTarget.ES2022, true);
  const found: SqlStatement[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const first = node.arguments[0];
      if ((QUERY_METHODS.has(method) || KNEX_METHODS.has(method)) && first && ts.isStringLiteralLike(first)) {
        if (LOOKS_LIKE_SQL.test(first.text)) {
          found.push({
            snippet,
            line: snippet.line + file.getLineAndCharacterOfPosition(first.getStart(file)).line,
            sql: first.text,
            knex: KNEX_METHODS.has(method) && /\bknex\b/i.test(snippet.code),
          });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The SQL with its quoted literals and identifiers blanked, so a `?` or `$1` inside quotes is not read as a bind. */
const unquoted = (sql: string) =>
  sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|`[^`]*`/g, (quoted) => " ".repeat(quoted.length));

/** What is wrong with a statement for the databases its snippet names; empty when nothing is. */
export function dialectProblems(statement: SqlStatement): string[] {
  const where = `${statement.snippet.doc}:${statement.line}`;
  const dialects = dialectsOf(statement.snippet.code);
  const bare = unquoted(statement.sql);
  const dollar = /\$\d+/.test(bare);
  const question = /\?/.test(bare);
  const problems: string[] = [];
  if (statement.knex) {
    if (dollar) problems.push(`${where}: Knex binds with ?, never $1: ${statement.sql}`);
    return problems;
  }
  if ((dollar || question) && dialects.size === 0) {
    problems.push(
      `${where}: the snippet names no database, so its bind placeholders cannot be right: ${statement.sql}`,
    );
  }
  if (dollar && dialects.has("mysql")) {
    problems.push(
      `${where}: the snippet is for MySQL or MariaDB${dialects.has("postgres") ? " too" : ""}, where $1 is no placeholder (mysql2 binds ?): ${statement.sql}`,
    );
  }
  if (question && dialects.has("postgres")) {
    problems.push(
      `${where}: the snippet is for PostgreSQL${dialects.has("mysql") ? " too" : ""}, where ? is no placeholder (pg binds $1): ${statement.sql}`,
    );
  }
  if (dialects.has("mysql") && /"[A-Za-z_][\w$]*"/.test(statement.sql)) {
    problems.push(
      `${where}: "quoted" identifiers are strings on MySQL and MariaDB (quote with \`backticks\`): ${statement.sql}`,
    );
  }
  if (dialects.has("postgres") && /`/.test(statement.sql)) {
    problems.push(`${where}: PostgreSQL quotes identifiers with "double quotes", not backticks: ${statement.sql}`);
  }
  return problems;
}
