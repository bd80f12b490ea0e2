import type { Sequelize, Transaction } from "sequelize";
import { WebhookConfigurationError } from "../../../webhooks/errors.js";
import type { SqlBinding, SqlResult } from "../../sql/binding.js";
import { closeDriverConnection } from "../shared/driver-connection.js";
import { wrongObject } from "../wrong-object.js";
import { numberedPlaceholders } from "./numbered.js";

const EXPECTED = 'a Sequelize instance for PostgreSQL ("postgres") or MySQL/MariaDB ("mysql", with mysql2)';

/**
 * The binding of the idempotency stores to Sequelize 6: the store's statements run through `sequelize.query` with
 * bound values, and a transactional delivery runs inside a managed `sequelize.transaction(…)`, whose `Transaction`
 * the handlers get as `ctx.transaction` (write with `Order.update(…, { where, transaction: ctx.transaction })`; a
 * query without `transaction` runs outside it, unless you enabled Sequelize's CLS).
 *
 * When handlers run out of time, their transaction's connection is closed: the database rolls it back, whatever they
 * send with that transaction later fails, a statement of theirs still running ends, and the session's locks go with
 * it (MySQL's `GET_LOCK`, which the MySQL store takes and a ROLLBACK would keep). Sequelize's pool replaces the
 * connection.
 *
 * @throws WebhookConfigurationError when `sequelize` is not a Sequelize instance for PostgreSQL or MySQL/MariaDB
 * (`mysql`; the `mariadb` dialect is not supported yet).
 *
 * @example
 * import { Sequelize } from "sequelize";
 * import { sequelizeBinding } from "@kirimbayar/core/sequelize";
 * const sequelize = new Sequelize(process.env.DATABASE_URL!);
 * const store = new PostgresIdempotencyStore({ binding: sequelizeBinding(sequelize) });
 */
export function sequelizeBinding<S extends SequelizeLike>(sequelize: S): SqlBinding<SequelizeTransactionOf<S>> {
  // The transaction type is the instance's own, checked at the call; inside, Sequelize's types (dev only) apply.
  return bindSequelize(sequelize as unknown as Sequelize) as unknown as SqlBinding<SequelizeTransactionOf<S>>;
}

/**
 * What {@link sequelizeBinding} takes: a Sequelize 6 instance, checked when the binding is built. Typed by its
 * shape, so that Sequelize stays an optional peer whose types this package never imports.
 */
export interface SequelizeLike {
  transaction(...args: never[]): Promise<unknown>;
  query(...args: never[]): Promise<unknown>;
  getDialect(): string;
}

/**
 * The `Transaction` of a Sequelize instance, as its unmanaged `sequelize.transaction()` resolves to (the last of
 * its overloads, from which TypeScript infers): the one a managed transaction hands to its callback too.
 */
export type SequelizeTransactionOf<S extends SequelizeLike> = S extends {
  transaction(...args: never[]): Promise<infer Tx>;
}
  ? Tx
  : never;

function bindSequelize(sequelize: Sequelize): SqlBinding<Transaction> {
  const candidate = sequelize as Partial<Sequelize> | null | undefined;
  if (
    typeof candidate !== "object" ||
    candidate === null ||
    typeof candidate.transaction !== "function" ||
    typeof candidate.query !== "function" ||
    typeof candidate.getDialect !== "function"
  ) {
    throw wrongObject("sequelizeBinding", EXPECTED, sequelize);
  }
  const dialect = candidate.getDialect();
  // Its "mariadb" dialect runs on the `mariadb` driver, untested here; "mysql" (mysql2) serves MariaDB servers too.
  if (dialect !== "postgres" && dialect !== "mysql") {
    throw new WebhookConfigurationError(
      `sequelizeBinding expects ${EXPECTED}; got a Sequelize instance for "${dialect}".`,
    );
  }
  // Sequelize's bind parameters are `$n` on every database.
  const bindable = dialect === "postgres" ? (sql: string) => sql : numberedPlaceholders;

  return {
    library: "sequelize",
    dialect: dialect === "postgres" ? "postgres" : "mysql",
    dialectSource: `dialect "${dialect}"`,
    transaction(work) {
      return sequelize.transaction((transaction) => work(transaction));
    },
    async query(sql, params, tx): Promise<SqlResult> {
      // `transaction: null` keeps a statement meant for the pool out of a transaction Sequelize's CLS would add.
      const [results, metadata] = (await sequelize.query(bindable(sql), {
        bind: [...params],
        transaction: tx ?? null,
      })) as [unknown, unknown];
      return sequelizeResult(results, metadata);
    },
    abandon(tx) {
      closeDriverConnection((tx as Transaction & { connection?: unknown }).connection);
    },
  };
}

/**
 * A raw query's `[results, metadata]`: rows (PostgreSQL, a MySQL read) or a write's header (MySQL); the metadata is
 * the count (PostgreSQL `INSERT … RETURNING`), `pg`'s result (`rowCount`), or the header again (MySQL).
 */
function sequelizeResult(results: unknown, metadata: unknown): SqlResult {
  const rows = Array.isArray(results) ? (results as Record<string, unknown>[]) : [];
  const header = (Array.isArray(results) ? metadata : results) as
    | { rowCount?: unknown; affectedRows?: unknown }
    | number
    | null
    | undefined;
  const count = typeof header === "number" ? header : (header?.rowCount ?? header?.affectedRows);
  return typeof count === "number" ? { rows, affectedRows: count } : { rows };
}
