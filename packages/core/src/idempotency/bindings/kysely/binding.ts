import type { Kysely, Transaction } from "kysely";
import type { SqlBinding, SqlResult } from "../../sql/binding.js";
import { wrongObject } from "../wrong-object.js";
import { compiledStatement } from "./compiled.js";

const EXPECTED = "a Kysely instance (new Kysely<DB>({ dialect })), not a transaction";

/**
 * The binding of the idempotency stores to Kysely (PostgresDialect or MysqlDialect): the store's statements run on
 * the database's own connections, and a transactional delivery runs inside `db.transaction().execute(…)`, whose
 * `Transaction<DB>` the handlers get as `ctx.transaction`, typed by your `DB` (write with
 * `ctx.transaction.updateTable("orders")…`, never with `db`).
 *
 * When handlers run out of time, the binding takes their transaction's turn on its connection and rolls it back
 * there (on MySQL also freeing the session's named locks), holding the turn until Kysely has ended the transaction:
 * a statement they send later waits, then is refused by Kysely, so it can neither join the transaction nor run on its
 * own after the ROLLBACK. A statement already executing is waited for: bound statements with the server's time limit
 * (`statement_timeout` on PostgreSQL, `max_statement_time` on MariaDB).
 *
 * @throws WebhookConfigurationError when `db` is not a Kysely instance (or is a transaction).
 *
 * @example
 * import { Kysely, PostgresDialect } from "kysely";
 * import { kyselyBinding } from "@kirimbayar/core/kysely";
 * const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
 * const store = new PostgresIdempotencyStore({ binding: kyselyBinding(db) });
 */
export function kyselyBinding<D extends KyselyDatabase>(db: D): SqlBinding<KyselyTransactionOf<D>> {
  return bindKysely(db as unknown as Kysely<unknown>) as unknown as SqlBinding<KyselyTransactionOf<D>>;
}

/** What {@link kyselyBinding} takes: a `Kysely<DB>` instance (checked when the binding is built). */
export interface KyselyDatabase {
  transaction(): { execute(...args: never[]): unknown };
  getExecutor(): unknown;
}

/**
 * The transaction object of a Kysely instance `D` (its `Transaction<DB>`), read from its `transaction().execute`
 * callback: this entry's declarations then import nothing of Kysely, whose ESM-only types a CommonJS consumer's
 * TypeScript (node16 resolution) could not import.
 */
export type KyselyTransactionOf<D> = D extends {
  transaction(): { execute(callback: (trx: infer Tx) => Promise<never>): unknown };
}
  ? Tx
  : never;

function bindKysely<DB>(db: Kysely<DB>): SqlBinding<Transaction<DB>> {
  const candidate = db as Partial<Kysely<DB>> | null | undefined;
  if (
    typeof candidate !== "object" ||
    candidate === null ||
    typeof candidate.transaction !== "function" ||
    typeof candidate.getExecutor !== "function" ||
    candidate.isTransaction === true
  ) {
    throw wrongObject("kyselyBinding", EXPECTED, db);
  }
  // PostgreSQL's adapter is the one of Kysely's server dialects that supports RETURNING (MySQL's does not).
  const adapter = candidate.getExecutor().adapter;
  const postgres = adapter.supportsReturning;
  const adapterDialect = kyselyAdapterDialect(adapter);
  // Per open transaction: settles once Kysely has ended it (and refuses its statements from then on).
  const endings = new WeakMap<Transaction<DB>, Promise<unknown>>();
  // Per abandoned transaction: resolves once its connection is held for the rollback.
  const closings = new WeakMap<Transaction<DB>, Promise<void>>();

  return {
    library: "kysely",
    dialect: adapterDialect?.dialect,
    dialectSource: adapterDialect?.name,
    transaction(work) {
      let ended!: () => void;
      const ending = new Promise<void>((resolve) => {
        ended = resolve;
      });
      const running = db
        .transaction()
        .execute(async (trx) => {
          endings.set(trx, ending);
          try {
            await work(trx);
          } catch (error) {
            // Abandoned: roll back only once no statement of the handlers can slip in behind the ROLLBACK.
            await closings.get(trx);
            throw error;
          }
        })
        .finally(ended);
      return running;
    },
    async query(sql, params, tx): Promise<SqlResult> {
      // Straight to a connection: the user's plugins (CamelCasePlugin …) are for the user's own queries.
      const result = await (tx ?? db)
        .getExecutor()
        .provideConnection((connection) => connection.executeQuery(compiledStatement(sql, params)));
      const affected = result.numAffectedRows;
      return affected === undefined
        ? { rows: result.rows as Record<string, unknown>[] }
        : { rows: result.rows as Record<string, unknown>[], affectedRows: Number(affected) };
    },
    abandon(tx) {
      if (closings.has(tx)) return;
      // Kysely runs a transaction's statements one at a time and marks it rolled back only once its ROLLBACK was
      // answered, so a statement sent meanwhile would run after it, outside any transaction. Taking the
      // connection's turn now and keeping it until Kysely has ended the transaction makes every later statement
      // wait, then fail. Kysely cannot close a connection, so the turn also does what closing it would: the
      // transaction rolled back at once, and on MySQL the session's named locks freed (the MySQL store holds the
      // event's lock with GET_LOCK, which a ROLLBACK keeps), before the pool lends the connection again.
      let held!: () => void;
      const holding = new Promise<void>((resolve) => {
        held = resolve;
      });
      closings.set(tx, holding);
      const ending = endings.get(tx);
      try {
        tx.getExecutor()
          .provideConnection(async (connection) => {
            try {
              await connection.executeQuery(compiledStatement("ROLLBACK", []));
              if (!postgres) await connection.executeQuery(compiledStatement("DO RELEASE_ALL_LOCKS()", []));
            } catch {
              // A connection that failed is discarded by its pool: its transaction and locks end with it.
            }
            held();
            await ending;
          })
          .then(held, held);
      } catch {
        // Already ended: nothing to hold.
        held();
      }
    },
  };
}

/**
 * The database of Kysely's adapter, by the class of Kysely's own (`PostgresAdapter`, `MysqlAdapter`) it is or extends
 * (third-party dialects reuse them); read by name, since nothing of Kysely is imported at run time. Another adapter
 * (SQLite, SQL Server, unknown) says nothing.
 */
function kyselyAdapterDialect(adapter: object): { dialect: "postgres" | "mysql"; name: string } | undefined {
  for (let proto = Object.getPrototypeOf(adapter); proto !== null; proto = Object.getPrototypeOf(proto)) {
    const name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
    if (name === "PostgresAdapter") return { dialect: "postgres", name };
    if (name === "MysqlAdapter") return { dialect: "mysql", name };
  }
  return undefined;
}
