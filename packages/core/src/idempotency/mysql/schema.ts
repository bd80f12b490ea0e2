/** Default table of the MySQL idempotency store. */
export const DEFAULT_MYSQL_IDEMPOTENCY_TABLE = "kirimbayar_idempotency";

// MySQL and MariaDB identifiers: up to 64 characters. Only plain names, so that quoting them is enough.
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** The backtick-quoted table name; throws for anything but one or two plain identifiers (`name`, `db.name`). */
export function quotedMysqlTable(table: string): string {
  const parts = table.split(".");
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new TypeError('MysqlIdempotencyStore: table must be "name" or "database.name" of letters, digits and _');
  }
  return parts.map((part) => `\`${part}\``).join(".");
}

/**
 * The schema of the MySQL store's table, as statements (the same SQL as `sql/mysql-idempotency.sql` in this package,
 * for your migration tool). MySQL 8.0+ or MariaDB 10.6+, InnoDB.
 *
 * - `key_hash` (the primary key) is the SHA-256 of the key's UTF-8 bytes, computed by the statements themselves
 *   (`UNHEX(SHA2(key, 256))`): an index on a utf8mb4 column holds at most 768 characters, and event keys can be longer.
 *   `key` keeps the key readable.
 * - `state` is `processing` (a delivery holds the lease until `lease_expires_at`), `completed` (kept until
 *   `expires_at`, the retention) or `released` (a failed attempt, remembered for the count in `attempts`).
 * - Times are `DATETIME(6)` in UTC, written and compared only against `UTC_TIMESTAMP(6)`: neither the session's
 *   `time_zone` nor the driver's `timezone` option moves a lease.
 *
 * @example
 * for (const statement of mysqlIdempotencySchema("webhook_events")) await pool.query(statement);
 */
export function mysqlIdempotencySchema(table: string = DEFAULT_MYSQL_IDEMPOTENCY_TABLE): string[] {
  const name = quotedMysqlTable(table);
  return [
    `CREATE TABLE IF NOT EXISTS ${name} (
  key_hash BINARY(32) NOT NULL,
  \`key\` TEXT NOT NULL,
  state VARCHAR(10) NOT NULL CHECK (state IN ('processing', 'completed', 'released')),
  owner TEXT,
  attempts INT NOT NULL DEFAULT 1,
  lease_expires_at DATETIME(6),
  expires_at DATETIME(6) NOT NULL,
  PRIMARY KEY (key_hash),
  KEY kirimbayar_expires_at (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ];
}
