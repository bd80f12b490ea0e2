import type { ConnectionOptions } from "bullmq";
import type { Cluster, Redis, RedisOptions } from "ioredis";
import { isClusterConnection } from "./cluster-prefix.js";
import type { RescueRedis } from "./lost-fetches.js";

/** Reconnect delays (ms) after a Redis outage: 100, 200, ... up to 1 s, not BullMQ's up to 20 s. */
export const reconnectDelay = (times: number): number => Math.min(times * 100, 1_000);

/**
 * A Redis client of the inbox's own, on the inbox's connection (a duplicate of your instance, or one from your
 * options, Sentinel's included), that fails at once while Redis is away instead of queueing its commands.
 * `undefined` when ioredis cannot be loaded (a BullMQ connection of another client library).
 */
export async function failFastRedisOf(connection: ConnectionOptions): Promise<Redis | Cluster | undefined> {
  const failFast = { maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: reconnectDelay };
  let client: Redis | Cluster;
  if (isClusterConnection(connection)) {
    // A Cluster's duplicate takes (startup nodes, options): the same nodes, each node's connection failing fast.
    const cluster = connection as Cluster;
    client = cluster.duplicate([], {
      enableOfflineQueue: false,
      redisOptions: { ...cluster.options.redisOptions, ...failFast },
    });
  } else if (typeof (connection as { duplicate?: unknown }).duplicate === "function") {
    client = (connection as Redis).duplicate(failFast);
  } else {
    try {
      const { Redis: RedisClient } = await import("ioredis");
      client = new RedisClient({ ...(connection as RedisOptions), ...failFast });
    } catch {
      return undefined;
    }
  }
  client.on("error", () => {}); // Redis away: the command fails, and the caller tries again or answers 503
  return client;
}

/**
 * The rescue's client (see lost-fetches.ts): it fails at once while Redis is away (the rescue tries again a second
 * later). Without one, the stalled check alone brings lost events back. On a Redis Cluster its reads (LRANGE, MGET
 * of lock keys) stay on the queue's one slot, thanks to the prefix's hash tag.
 */
export function rescueRedisOf(connection: ConnectionOptions): Promise<RescueRedis | undefined> {
  return failFastRedisOf(connection);
}
