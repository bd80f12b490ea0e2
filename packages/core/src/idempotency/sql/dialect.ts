import { WebhookConfigurationError } from "../../webhooks/errors.js";
import type { SqlBinding } from "./binding.js";

/** The databases an SQL idempotency store speaks. */
export type SqlDialect = NonNullable<SqlBinding<unknown>["dialect"]>;

// Each dialect's store and where an app imports it from, to name the store to use instead.
const STORES: Record<SqlDialect, { database: string; store: string; entry: string }> = {
  postgres: { database: "PostgreSQL", store: "PostgresIdempotencyStore", entry: "@kirimbayar/core/postgres" },
  mysql: { database: "MySQL", store: "MysqlIdempotencyStore", entry: "@kirimbayar/core/mysql" },
};

/**
 * Refuses a binding to the other database when the store is built: its statements would fail only at the first
 * payment, with a syntax error answered 503. A binding that does not say its dialect is not checked.
 *
 * @throws WebhookConfigurationError naming the store, the database the binding is for, and the store to use.
 */
export function assertBindingDialect(
  expected: SqlDialect,
  binding: Pick<SqlBinding<unknown>, "library" | "dialect" | "dialectSource">,
): void {
  const found = binding.dialect;
  if (found === undefined || found === expected || !(found in STORES)) return;
  const where = binding.dialectSource === undefined ? binding.library : `${binding.library}, ${binding.dialectSource}`;
  const instead = STORES[found];
  throw new WebhookConfigurationError(
    `${STORES[expected].store} got a binding to a ${instead.database} database (${where}): use ${instead.store} from ${instead.entry}.`,
  );
}
