export {
  MemoryIdempotencyStore,
  type MemoryIdempotencyStoreOptions,
} from "./memory.js";
export {
  DEFAULT_POSTGRES_IDEMPOTENCY_TABLE,
  type PgPoolClientLike,
  type PgPoolLike,
  type PgQueryable,
  PostgresIdempotencyStore,
  type PostgresIdempotencyStoreOptions,
  postgresIdempotencySchema,
} from "./postgres.js";
export {
  type IoRedisLikeClient,
  type NodeRedisLikeClient,
  RedisIdempotencyStore,
  type RedisIdempotencyStoreOptions,
} from "./redis.js";
export {
  type ClaimResult,
  type IdempotencyStore,
  IdempotencyStoreUnavailableError,
  type IdempotencyTransaction,
  type MaybeThenable,
  type TransactionalIdempotencyStore,
} from "./types.js";
