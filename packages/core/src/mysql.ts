// Entry point of `@kirimbayar/core/mysql`: the idempotency store over the shop's own MySQL 8.0+ or MariaDB 10.6+
// (`mysql2`), and its statements for bindings that run them through another library's transaction. Its own entry, so
// that apps on another store never load it.
export {
  assertSupportedMysqlVersion,
  claimInTransactionNoWaitWith,
  claimInTransactionWith,
  claimWith,
  completeWith,
  DEFAULT_MYSQL_IDEMPOTENCY_TABLE,
  isMysqlLockConflict,
  MYSQL_MINIMUM_VERSIONS,
  type MysqlCallbackApi,
  type MysqlIdempotencyStatements,
  MysqlIdempotencyStore,
  type MysqlIdempotencyStoreOptions,
  type MysqlPoolConnectionLike,
  type MysqlPoolLike,
  type MysqlQueryable,
  type MysqlRun,
  type MysqlServerVersion,
  MysqlServerVersionError,
  type MysqlStatement,
  type MysqlStatementResult,
  mysqlIdempotencySchema,
  mysqlIdempotencyStatements,
  parseMysqlVersion,
  releaseWith,
} from "./idempotency/mysql/index.js";
export {
  DEFAULT_MYSQL_JOURNAL_TABLE,
  MysqlDeliveryJournal,
  type MysqlDeliveryJournalOptions,
  mysqlJournalSchema,
} from "./journal/mysql/index.js";
// The delivery journal kept beside the idempotency records (issue 30).
export {
  DeliveryJournalOverflowError,
  DeliveryJournalWriteError,
} from "./journal/store-support/errors.js";
export type { JournalBatchingOptions } from "./journal/store-support/write-behind.js";
