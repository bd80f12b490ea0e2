export {
  MemoryIdempotencyStore,
  type MemoryIdempotencyStoreOptions,
} from "./memory.js";
export {
  type ClaimResult,
  IdempotencyRecordNotDurableError,
  type IdempotencyStore,
  IdempotencyStoreUnavailableError,
  type IdempotencyTransaction,
  type MaybeThenable,
  type TransactionalIdempotencyStore,
  type TransactionalStage,
  type TransactionDialect,
  type TransactionSql,
} from "./types.js";
