export {
  claimInTransactionNoWaitWith,
  claimInTransactionWith,
  claimWith,
  completeWith,
  isMysqlLockConflict,
  type MysqlRun,
  type MysqlStatementResult,
  releaseWith,
} from "./operations.js";
export { DEFAULT_MYSQL_IDEMPOTENCY_TABLE, mysqlIdempotencySchema } from "./schema.js";
export { type MysqlIdempotencyStatements, type MysqlStatement, mysqlIdempotencyStatements } from "./sql.js";
export {
  type MysqlCallbackApi,
  MysqlIdempotencyStore,
  type MysqlIdempotencyStoreOptions,
  type MysqlPoolConnectionLike,
  type MysqlPoolLike,
  type MysqlQueryable,
} from "./store.js";
export {
  assertSupportedMysqlVersion,
  MYSQL_MINIMUM_VERSIONS,
  type MysqlServerVersion,
  MysqlServerVersionError,
  parseMysqlVersion,
} from "./version.js";
