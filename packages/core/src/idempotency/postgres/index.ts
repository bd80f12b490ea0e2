// The PostgreSQL idempotency store (`pg`, PGlite, or an ORM through its binding): what `@kirimbayar/core/postgres`
// and the delivery journal beside it take from this folder.
export type { PgPoolClientLike, PgPoolLike, PgQueryable } from "./connection.js";
export { DEFAULT_POSTGRES_IDEMPOTENCY_TABLE, postgresIdempotencySchema } from "./schema.js";
export {
  isPoolerStatementError,
  type RefusedStatements,
  recordStatementRefusal,
  type StatementMode,
  type StatementModeReport,
  sendNamedUnlessRefused,
  statementModeOf,
} from "./statement-mode.js";
export { PostgresIdempotencyStore, type PostgresIdempotencyStoreOptions } from "./store.js";
