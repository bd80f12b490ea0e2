// Entry point of `@kirimbayar/core/redis`: the idempotency store shared by every instance through Redis (ioredis or
// node-redis). Its own entry, so that apps on another store never load it.
export {
  type IoRedisLikeClient,
  type NodeRedisLikeClient,
  RedisIdempotencyStore,
  type RedisIdempotencyStoreOptions,
} from "./idempotency/redis.js";
