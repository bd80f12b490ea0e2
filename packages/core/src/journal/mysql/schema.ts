/** Default table of {@link MysqlDeliveryJournal}. */
export const DEFAULT_MYSQL_JOURNAL_TABLE = "kirimbayar_delivery_journal";

// MySQL and MariaDB identifiers: up to 64 characters. Only plain names, so that quoting them is enough.
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** The backtick-quoted table name; throws for anything but one or two plain identifiers (`name`, `db.name`). */
export function quotedMysqlJournalTable(table: string): string {
  const parts = table.split(".");
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new TypeError('MysqlDeliveryJournal: table must be "name" or "database.name" of letters, digits and _');
  }
  return parts.map((part) => `\`${part}\``).join(".");
}

/**
 * The schema of the MySQL journal's two tables, as statements (the same SQL as `sql/mysql-journal.sql` in this
 * package, for your migration tool). MySQL 8.0+ or MariaDB 10.6+, InnoDB, `utf8mb4_bin` (references match
 * exactly). Times are `DATETIME(3)` in UTC, written and read by the journal as UTC text and arithmetic only: the
 * session's `time_zone` never moves them. The runs table is `<table>_runs`.
 *
 * @example
 * for (const statement of mysqlJournalSchema()) await pool.query(statement);
 */
export function mysqlJournalSchema(table: string = DEFAULT_MYSQL_JOURNAL_TABLE): string[] {
  const name = quotedMysqlJournalTable(table);
  const runs = quotedMysqlJournalTable(`${table}_runs`);
  return [
    `CREATE TABLE IF NOT EXISTS ${name} (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  at DATETIME(3) NOT NULL,
  source VARCHAR(32) NOT NULL,
  origin VARCHAR(16) NOT NULL,
  event VARCHAR(64),
  state VARCHAR(64),
  qris_history_id VARCHAR(191),
  payment_id VARCHAR(191),
  order_id VARCHAR(191),
  order_no VARCHAR(191),
  cnote VARCHAR(191),
  idempotency_key VARCHAR(512),
  attempt INT,
  http_status SMALLINT NOT NULL,
  outcome VARCHAR(16) NOT NULL,
  handler_ms DOUBLE,
  error VARCHAR(500),
  instance VARCHAR(128) NOT NULL,
  body MEDIUMTEXT,
  PRIMARY KEY (id),
  KEY kirimbayar_journal_qris_history_id (qris_history_id, at),
  KEY kirimbayar_journal_payment_id (payment_id, at),
  KEY kirimbayar_journal_order_id (order_id, at),
  KEY kirimbayar_journal_order_no (order_no, at),
  KEY kirimbayar_journal_cnote (cnote, at),
  KEY kirimbayar_journal_idempotency_key (idempotency_key, at),
  KEY kirimbayar_journal_source_at (source, at),
  KEY kirimbayar_journal_at (at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
    `CREATE TABLE IF NOT EXISTS ${runs} (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  started_at DATETIME(3) NOT NULL,
  finished_at DATETIME(3) NOT NULL,
  reference_count INT NOT NULL,
  outcomes TEXT NOT NULL,
  instance VARCHAR(128) NOT NULL,
  PRIMARY KEY (id),
  KEY kirimbayar_journal_runs_finished_at (finished_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ];
}
