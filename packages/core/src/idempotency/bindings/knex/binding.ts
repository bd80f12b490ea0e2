import type { Knex } from "knex";
import { WebhookConfigurationError } from "../../../webhooks/errors.js";
import type { SqlBinding, SqlResult } from "../../sql/binding.js";
import { closeDriverConnection } from "../shared/driver-connection.js";
import { driverResult } from "../shared/driver-result.js";
import { wrongObject } from "../wrong-object.js";
import { knexPositional } from "./positional.js";

const EXPECTED =
  'a Knex instance for PostgreSQL (client "pg") or MySQL/MariaDB (client "mysql2"), as knex({ … }) returns';

/**
 * The binding of the idempotency stores to Knex: the store's statements run through `knex.raw` (on the pool, or on a
 * delivery's transaction), and a transactional delivery runs inside `knex.transaction(…)`, whose `Knex.Transaction`
 * the handlers get as `ctx.transaction` (write with `ctx.transaction("orders").update(…)`, never with `knex`).
 *
 * When handlers run out of time, their transaction's connection is closed: the database rolls it back, and whatever
 * they send through it later fails (Knex itself refuses statements once it sent the ROLLBACK; closing also ends a
 * statement still running, and frees the session's locks: MySQL's `GET_LOCK`, which the MySQL store takes and a
 * ROLLBACK would keep). Knex's pool replaces the connection.
 *
 * @throws WebhookConfigurationError when `knex` is not a Knex instance for PostgreSQL or MySQL/MariaDB.
 *
 * @example
 * import knex from "knex";
 * import { knexBinding } from "@kirimbayar/core/knex";
 * const db = knex({ client: "pg", connection: process.env.DATABASE_URL });
 * const store = new PostgresIdempotencyStore({ binding: knexBinding(db) });
 */
export function knexBinding<K extends KnexLike>(knex: K): SqlBinding<KnexTransactionOf<K>> {
  // The transaction type is the instance's own, checked at the call; inside, Knex's types (dev only) apply.
  return bindKnex(knex as unknown as Knex) as unknown as SqlBinding<KnexTransactionOf<K>>;
}

/**
 * What {@link knexBinding} takes: a Knex instance (`knex({ … })`), checked when the binding is built. Typed by its
 * shape, so that Knex stays an optional peer whose types this package never imports.
 */
export interface KnexLike {
  transaction(...args: never[]): Promise<unknown>;
  raw(...args: never[]): unknown;
}

/** The transaction a Knex instance hands to `knex.transaction(async (trx) => …)`: what the handlers get. */
export type KnexTransactionOf<K extends KnexLike> = K extends {
  transaction(scope: (trx: infer Tx) => unknown, ...rest: never[]): unknown;
}
  ? Tx
  : never;

function bindKnex(knex: Knex): SqlBinding<Knex.Transaction> {
  // Knex is a function with methods; a transaction is one too, and would put every statement in one transaction.
  const candidate = knex as unknown as KnexShape;
  if (
    typeof candidate !== "function" ||
    typeof candidate.transaction !== "function" ||
    typeof candidate.raw !== "function" ||
    candidate.isTransaction === true
  ) {
    throw wrongObject("knexBinding", EXPECTED, knex);
  }
  const dialect = candidate.client?.dialect;
  if (dialect !== "postgresql" && dialect !== "mysql") {
    throw new WebhookConfigurationError(`knexBinding expects ${EXPECTED}; got a Knex instance for ${String(dialect)}.`);
  }
  const postgres = dialect === "postgresql";
  // The driver connection under each open transaction, for abandon().
  const connections = new WeakMap<Knex.Transaction, unknown>();

  const client = candidate.client?.config?.client;
  return {
    library: "knex",
    dialect: postgres ? "postgres" : "mysql",
    dialectSource: typeof client === "string" ? `client "${client}"` : `dialect "${dialect}"`,
    transaction(work) {
      return knex.transaction(async (trx) => {
        // Lent to this transaction for its whole life; Knex's transaction client answers with it at once.
        connections.set(trx, await (trx.client as TransactionClient).acquireConnection());
        await work(trx);
      });
    },
    async query(sql, params, tx): Promise<SqlResult> {
      const statement = postgres ? knexPositional(sql, params) : { sql, bindings: [...params] };
      const runner = tx ?? knex;
      return driverResult(await runner.raw(statement.sql, statement.bindings as Knex.RawBinding[]));
    },
    abandon(tx) {
      const connection = connections.get(tx) as { __knex__disposed?: unknown } | undefined;
      if (connection === undefined) return;
      // Knex's own mark of a broken connection (its drivers' `error`/`end` listeners set it, but only once the
      // socket has closed): its pool then destroys the connection instead of lending it again.
      connection.__knex__disposed = "abandoned by kirimbayar: the webhook handlers ran out of time";
      closeDriverConnection(connection);
    },
  };
}

/** What is checked of the object given as Knex. */
type KnexShape = ((...args: unknown[]) => unknown) & {
  transaction?: unknown;
  raw?: unknown;
  isTransaction?: unknown;
  client?: { dialect?: unknown; config?: { client?: unknown } };
};

/** The part of Knex's transaction client used here (typed `any` by Knex). */
interface TransactionClient {
  acquireConnection(): Promise<unknown>;
}
