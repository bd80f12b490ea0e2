import { RedisIdempotencyStore } from "@kirimbayar/core/redis";
import { type IdempotencyStore, MemoryIdempotencyStore } from "@kirimbayar/core/webhooks";
import { closeShopRedis, connectShopRedis } from "./redis.js";

/** An idempotency store and how to release it. */
export interface ShopIdempotency {
  store: IdempotencyStore;
  /** Which store it is, for the startup log. */
  kind: "redis" | "memory" | "postgres" | "pglite";
  close(): Promise<void>;
}

/**
 * The store that makes every webhook run once: Redis when `REDIS_URL` is set (shared by every instance of the shop),
 * otherwise process memory (enough for one instance).
 *
 * @example
 * const { store, close } = await createIdempotencyStore(process.env.REDIS_URL);
 */
export async function createIdempotencyStore(redisUrl: string | undefined): Promise<ShopIdempotency> {
  if (redisUrl === undefined) {
    return { store: new MemoryIdempotencyStore(), kind: "memory", close: async () => {} };
  }
  // Fail fast while disconnected: the receiver then answers 503 and the provider retries later, instead of a
  // queued claim landing after the reconnect.
  const client = await connectShopRedis(redisUrl);
  return {
    store: new RedisIdempotencyStore({ client }),
    kind: "redis",
    close: () => closeShopRedis(client),
  };
}
