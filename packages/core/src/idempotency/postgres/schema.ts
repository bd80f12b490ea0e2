// The table of the PostgreSQL idempotency store: its default name, the quoted name, and its schema as statements.

/** Default table of {@link PostgresIdempotencyStore}. */
export const DEFAULT_POSTGRES_IDEMPOTENCY_TABLE = "kirimbayar_idempotency";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The double-quoted table name; throws for anything but one or two plain identifiers. */
export function quotedTable(table: string): string {
  const parts = table.split(".");
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new TypeError(`PostgresIdempotencyStore: table must be "name" or "schema.name" of letters, digits and _`);
  }
  return parts.map((part) => `"${part}"`).join(".");
}

/**
 * The schema of the store's table, as statements (the same SQL as `sql/postgres-idempotency.sql` in this package,
 * for your migration tool). `state` is `processing` (a delivery holds the lease until `lease_expires_at`),
 * `completed` (kept until `expires_at`, the retention) or `released` (a failed attempt, remembered for the count).
 *
 * @example
 * for (const statement of postgresIdempotencySchema("shop.webhook_events")) await db.query(statement);
 */
export function postgresIdempotencySchema(table: string = DEFAULT_POSTGRES_IDEMPOTENCY_TABLE): string[] {
  const name = quotedTable(table);
  const index = `"${table.replace(".", "_")}_expires_at"`;
  return [
    `CREATE TABLE IF NOT EXISTS ${name} (
  key text PRIMARY KEY,
  state text NOT NULL CHECK (state IN ('processing', 'completed', 'released')),
  owner text,
  attempts integer NOT NULL DEFAULT 1,
  lease_expires_at timestamptz,
  expires_at timestamptz NOT NULL
)`,
    `CREATE INDEX IF NOT EXISTS ${index} ON ${name} (expires_at)`,
  ];
}
