// The Redis idempotency store (ioredis or node-redis): what `@kirimbayar/core/redis` and the delivery journal beside
// it take from this folder.
export type { IoRedisLikeClient, NodeRedisLikeClient } from "./command-sender.js";
export { RedisIdempotencyStore, type RedisIdempotencyStoreOptions } from "./store.js";
