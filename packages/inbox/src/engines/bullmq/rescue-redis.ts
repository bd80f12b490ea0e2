import type { ConnectionOptions } from "bullmq";
import type { Redis, RedisOptions } from "ioredis";
import type { RescueRedis } from "./lost-fetches.js";

/** Reconnect delays (ms) after a Redis outage: 100, 200, ... up to 1 s, not BullMQ's up to 20 s. */
export const reconnectDelay = (times: number): number => Math.min(times * 100, 1_000);

/**
 * A Redis client of the rescue's own, on the inbox's connection: it fails at once while Redis is away (the rescue
 * tries again a second later) instead of queueing its reads. `undefined` when ioredis cannot be loaded (a BullMQ
 * connection of another client library): the stalled check alone then brings lost events back.
 */
export async function rescueRedisOf(connection: ConnectionOptions): Promise<RescueRedis | undefined> {
  const failFast = { maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: reconnectDelay };
  let client: Redis;
  if (typeof (connection as { duplicate?: unknown }).duplicate === "function") {
    client = (connection as Redis).duplicate(failFast);
  } else {
    try {
      const { Redis: RedisClient } = await import("ioredis");
      client = new RedisClient({ ...(connection as RedisOptions), ...failFast });
    } catch {
      return undefined;
    }
  }
  client.on("error", () => {}); // Redis away: the rescue's reads fail and are tried again
  return client;
}
