import { WebhookConfigurationError } from "../../../webhooks/errors.js";
import type { SqlBinding, SqlResult } from "../../sql/binding.js";
import { closeDriverConnection } from "../shared/driver-connection.js";
import { driverResult } from "../shared/driver-result.js";
import { describeGiven, wrongObject } from "../wrong-object.js";

const EXPECTED = "a Drizzle database over a pg Pool (drizzle-orm/node-postgres) or a mysql2 Pool (drizzle-orm/mysql2)";

/** What the binding needs of a Drizzle database; its transaction type is taken from `transaction`'s callback. */
export interface DrizzleDatabaseLike {
  transaction(callback: (tx: unknown) => Promise<unknown>): Promise<unknown>;
}

/** The transaction object a Drizzle database hands to `db.transaction(async (tx) => …)`. */
export type DrizzleTransactionOf<D extends DrizzleDatabaseLike> = D extends {
  transaction(callback: (tx: infer Tx) => Promise<unknown>, ...rest: never[]): unknown;
}
  ? Tx
  : never;

/** The driver client under a Drizzle database or transaction (Drizzle's session keeps it). */
interface DriverClient {
  query(sql: string, values: unknown[]): Promise<unknown>;
}

/** Where Drizzle keeps its session (on databases and transactions of every driver), and the session's client. */
interface DrizzleInternals {
  session?: { client?: unknown; constructor?: unknown };
}

const ENTITY_KIND = Symbol.for("drizzle:entityKind");

/**
 * The binding of the idempotency stores to Drizzle over `pg` (`drizzle-orm/node-postgres`) or `mysql2`
 * (`drizzle-orm/mysql2`), created over a pool: the store's statements run on the pool's connections, and a
 * transactional delivery runs inside `db.transaction(…)`, whose transaction the handlers get as `ctx.transaction`,
 * typed as your database's (write with `ctx.transaction.update(orders)…`, never with `db`).
 *
 * When handlers run out of time, their transaction's connection is closed: the database rolls it back, and whatever
 * they send through it later fails (Drizzle itself would send it on the connection after the ROLLBACK, outside any
 * transaction, once the pool lent it again). The pool replaces the connection. A database over a single connection
 * is refused: that connection is the app's own and could not be closed.
 *
 * @throws WebhookConfigurationError when `db` is not a Drizzle database over a pg or mysql2 pool.
 *
 * @example
 * import { drizzle } from "drizzle-orm/node-postgres";
 * import { drizzleBinding } from "@kirimbayar/core/drizzle";
 * const db = drizzle(pool);
 * const store = new PostgresIdempotencyStore({ binding: drizzleBinding(db) });
 */
export function drizzleBinding<D extends DrizzleDatabaseLike>(db: D): SqlBinding<DrizzleTransactionOf<D>> {
  const session = (db as DrizzleInternals | null | undefined)?.session;
  const kind = (session?.constructor as { [ENTITY_KIND]?: unknown } | undefined)?.[ENTITY_KIND];
  if (typeof db?.transaction !== "function" || typeof kind !== "string") {
    throw wrongObject("drizzleBinding", EXPECTED, db);
  }
  if (kind !== "NodePgSession" && kind !== "MySql2Session") {
    throw new WebhookConfigurationError(`drizzleBinding expects ${EXPECTED}; got a Drizzle database on ${kind}.`);
  }
  if (!isPool(session?.client)) {
    throw new WebhookConfigurationError(
      `drizzleBinding expects ${EXPECTED}; got a Drizzle database over ${describeGiven(session?.client)}. Create it over a pool: drizzle(pool).`,
    );
  }
  const clientOf = (target: unknown) => (target as DrizzleInternals).session?.client as DriverClient;
  // Drivers' connections emit `error` when their backend dies; pg's pool listens only while a connection is idle.
  const listening = new WeakSet<object>();

  return {
    library: "drizzle",
    // The session says the driver, and with it the database: the two sessions served are one per dialect.
    dialect: kind === "NodePgSession" ? "postgres" : "mysql",
    dialectSource: kind === "NodePgSession" ? "drizzle-orm/node-postgres" : "drizzle-orm/mysql2",
    transaction(work) {
      return db.transaction(async (tx: unknown) => {
        const client = clientOf(tx) as DriverClient & { on?: (event: "error", listener: () => void) => unknown };
        if (!listening.has(client)) {
          listening.add(client);
          // The failing statement reports the error; unheard, the event would crash the process.
          client.on?.("error", () => {});
        }
        await work(tx as DrizzleTransactionOf<D>);
      });
    },
    async query(sql, params, tx): Promise<SqlResult> {
      return driverResult(await clientOf(tx ?? db).query(sql, [...params]));
    },
    abandon(tx) {
      closeDriverConnection(clientOf(tx));
    },
  };
}

// pg's Pool (Drizzle's own test: the class name) or mysql2's pool (it lends connections).
function isPool(client: unknown): boolean {
  if (typeof client !== "object" || client === null) return false;
  const name = (client as { constructor?: { name?: unknown } }).constructor?.name;
  return "getConnection" in client || (typeof name === "string" && name.includes("Pool") && "connect" in client);
}
