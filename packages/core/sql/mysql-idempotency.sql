-- Table of @kirimbayar/core's MysqlIdempotencyStore (default name kirimbayar_idempotency), for MySQL 8.0+ and
-- MariaDB 10.6+. The same statement as mysqlIdempotencySchema() / store.ensureSchema(); copy it into your migrations,
-- renaming the table if you pass another `table` option. A test keeps this file and the code identical.
-- key_hash is the SHA-256 of the key (the statements compute it: UNHEX(SHA2(key, 256))), so keys longer than an
-- index allows still work; times are UTC (the statements compare them with UTC_TIMESTAMP(6) only).
CREATE TABLE IF NOT EXISTS `kirimbayar_idempotency` (
  key_hash BINARY(32) NOT NULL,
  `key` TEXT NOT NULL,
  state VARCHAR(10) NOT NULL CHECK (state IN ('processing', 'completed', 'released')),
  owner TEXT,
  attempts INT NOT NULL DEFAULT 1,
  lease_expires_at DATETIME(6),
  expires_at DATETIME(6) NOT NULL,
  PRIMARY KEY (key_hash),
  KEY kirimbayar_expires_at (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
