// Entry point of `@kirimbayar/core/redis`: the idempotency store shared by every instance through Redis (ioredis or
// node-redis). Its own entry, so that apps on another store never load it.
export {
  type IoRedisLikeClient,
  type IoRedisLikePipeline,
  type NodeRedisClusterLikeClient,
  type NodeRedisLikeClient,
  type NodeRedisSentinelLikeClient,
  RedisIdempotencyStore,
  type RedisIdempotencyStoreOptions,
  type RedisLikeClient,
  type RedisReplicaAcknowledgement,
} from "./idempotency/redis/index.js";
export { RedisDeliveryJournal, type RedisDeliveryJournalOptions } from "./journal/redis/index.js";
// The delivery journal kept beside the idempotency records (issue 30).
export {
  DeliveryJournalOverflowError,
  DeliveryJournalWriteError,
} from "./journal/store-support/errors.js";
export type { JournalBatchingOptions } from "./journal/store-support/write-behind.js";
