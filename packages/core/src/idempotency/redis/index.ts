// The Redis idempotency store (ioredis or node-redis): what `@kirimbayar/core/redis` and the delivery journal beside
// it take from this folder.
export type {
  IoRedisLikeClient,
  IoRedisLikePipeline,
  NodeRedisClusterLikeClient,
  NodeRedisLikeClient,
  NodeRedisSentinelLikeClient,
  RedisLikeClient,
} from "./command-sender.js";
export type { RedisReplicaAcknowledgement } from "./replica-acknowledgement.js";
export { RedisIdempotencyStore, type RedisIdempotencyStoreOptions } from "./store.js";
