-- Tables of @kirimbayar/core's MysqlDeliveryJournal (default name kirimbayar_delivery_journal, runs in
-- kirimbayar_delivery_journal_runs), for MySQL 8.0+ and MariaDB 10.6+. The same statements as mysqlJournalSchema() /
-- journal.ensureSchema(); copy it into your migrations, renaming the tables if you pass another `table` option. A
-- test keeps this file and the code identical. Times are DATETIME(3) in UTC.
CREATE TABLE IF NOT EXISTS `kirimbayar_delivery_journal` (
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
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS `kirimbayar_delivery_journal_runs` (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  started_at DATETIME(3) NOT NULL,
  finished_at DATETIME(3) NOT NULL,
  reference_count INT NOT NULL,
  outcomes TEXT NOT NULL,
  instance VARCHAR(128) NOT NULL,
  PRIMARY KEY (id),
  KEY kirimbayar_journal_runs_finished_at (finished_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
