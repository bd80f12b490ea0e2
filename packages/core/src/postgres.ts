// Entry point of `@kirimbayar/core/postgres`: the idempotency store over the shop's own PostgreSQL (`pg` or PGlite).
// Its own entry, as each persistence layer of Powertools' idempotency is: an app that keeps the default memory store
// (or another store) never loads it.
export {
  DEFAULT_POSTGRES_IDEMPOTENCY_TABLE,
  // Prepared statements behind a transaction-mode pooler, shared by the store, the journal and the pg-boss inbox.
  isPoolerStatementError,
  type PgPoolClientLike,
  type PgPoolLike,
  type PgQueryable,
  PostgresIdempotencyStore,
  type PostgresIdempotencyStoreOptions,
  postgresIdempotencySchema,
  type RefusedStatements,
  recordStatementRefusal,
  type StatementMode,
  type StatementModeReport,
  sendNamedUnlessRefused,
  statementModeOf,
} from "./idempotency/postgres/index.js";
export type { SqlBinding, SqlResult } from "./idempotency/sql/binding.js";
export {
  DEFAULT_POSTGRES_JOURNAL_TABLE,
  PostgresDeliveryJournal,
  type PostgresDeliveryJournalOptions,
  postgresJournalSchema,
} from "./journal/postgres/index.js";
// The delivery journal kept beside the idempotency records (issue 30).
export {
  DeliveryJournalOverflowError,
  DeliveryJournalWriteError,
} from "./journal/store-support/errors.js";
export type { JournalBatchingOptions } from "./journal/store-support/write-behind.js";
