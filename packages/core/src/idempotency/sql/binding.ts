/**
 * The rows (and, where the driver tells, the count of changed rows) a statement answered. Bindings return what their
 * library gives; a statement without a result set answers no rows.
 */
export interface SqlResult {
  readonly rows: readonly Record<string, unknown>[];
  readonly affectedRows?: number | undefined;
}

/**
 * How an SQL idempotency store reaches the shop's database through the shop's own database library (Prisma,
 * TypeORM, Knex, Kysely, Drizzle, Sequelize, `mysql2`, `pg`): it runs statements, and it opens a transaction in that
 * library's own way, so that the store's claim and completion are statements of the same transaction as the
 * handlers' writes, which the handlers make through `ctx.transaction` (the library's transaction object, `Tx`).
 *
 * A binding says only how; the store says what (its dialect's statements). Each library's binding is its own entry
 * point (`@kirimbayar/core/prisma`, `@kirimbayar/core/typeorm`, ...), so an app loads only its own.
 *
 * @example
 * import { prismaBinding } from "@kirimbayar/core/prisma";
 * const store = new PostgresIdempotencyStore({ binding: prismaBinding(prisma) });
 */
export interface SqlBinding<Tx> {
  /** The library's name, for errors and logs (`"prisma"`, `"typeorm"`, ...). */
  readonly library: string;
  /**
   * The database the library's object is configured for, as the library tells (TypeORM's `type`, Knex's client,
   * Kysely's adapter, …). A store refuses, when it is built, a binding to the other database: it would otherwise fail
   * only at the first payment, with a syntax error. Optional, so a hand-written binding without it still works
   * (unchecked); the six bindings leave it out when their library does not tell.
   */
  readonly dialect?: "postgres" | "mysql" | undefined;
  /** Where the binding read its {@link SqlBinding.dialect} (`type "mysql"`, `client "pg"`), for that refusal. */
  readonly dialectSource?: string | undefined;
  /**
   * Runs `work` inside one transaction opened by the library: committed when `work` resolves, rolled back when it
   * rejects (with `work`'s error passed on), as `prisma.$transaction(fn)` or `dataSource.transaction(fn)` do.
   */
  transaction(work: (tx: Tx) => Promise<void>): PromiseLike<unknown>;
  /**
   * Runs one statement written with the database's native placeholders (`$1`, `$2` … on PostgreSQL, `?` on MySQL and
   * MariaDB): on `tx` when given, else on the library's own pool, outside any transaction.
   *
   * `statementName`, when given, is a name unique to this statement's text (the store's transactional claim on
   * PostgreSQL): a binding whose driver can keep a statement parsed and planned per connection (`pg`'s named
   * statements) may send it under that name; any other binding ignores it.
   */
  query(sql: string, params: readonly unknown[], tx?: Tx, statementName?: string): PromiseLike<SqlResult>;
  /**
   * Called when the handlers ran out of time while `tx` is open, just before the store rolls it back: make sure
   * nothing the handlers send through `tx` later can commit, even a statement queued behind the rollback. Where the
   * library itself refuses statements on a transaction once it is rolling back (Prisma), there is nothing to do;
   * elsewhere close the transaction's connection (the database then rolls back, and the pool replaces it).
   */
  abandon(tx: Tx): void;
}
