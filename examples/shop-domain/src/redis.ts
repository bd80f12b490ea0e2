import { Redis } from "ioredis";

/**
 * Connects the shop's Redis of `REDIS_URL`, failing fast while disconnected (no offline queue, one retry per command):
 * a caller then answers from what it has (memory, a 503) instead of a queued command landing after the reconnect.
 * Without an offline queue nothing can be sent before the connection is up, so it connects before the shop serves;
 * afterwards ioredis reconnects by itself and the callers notice a failing Redis through their commands' errors.
 *
 * @example
 * const client = await connectShopRedis(process.env.REDIS_URL);
 */
export async function connectShopRedis(url: string): Promise<Redis> {
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
  client.on("error", () => {
    // Surfaces as the commands' errors (503s on the webhook routes, memory answers from the quoter).
  });
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    // The URL may carry a password: name the variable, not its value.
    throw new Error(`Cannot connect to the Redis of REDIS_URL: ${(error as Error).message}`, { cause: error });
  }
  return client;
}

/** Closes a client of {@link connectShopRedis}: QUIT, or a disconnect when Redis is away. */
export async function closeShopRedis(client: Redis): Promise<void> {
  await client.quit().catch(() => client.disconnect());
}
