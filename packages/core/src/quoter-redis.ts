// Entry point of `@kirimbayar/core/quoter/redis`: the rate quoter's Redis store (ioredis or node-redis, an optional
// peer the app passes in). Its own entry, so that a quoter on the memory store never loads it.
export type { IoRedisLikeClient, NodeRedisLikeClient } from "./idempotency/redis/command-sender.js";
export { RedisRateStore, type RedisRateStoreOptions, redisRateStore } from "./quoter/redis-store.js";
