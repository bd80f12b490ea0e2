import { RedisIdempotencyStore } from "@kirimbayar/core/redis";
import { MemoryIdempotencyStore } from "@kirimbayar/core/webhooks";
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIdempotencyStore } from "../src/idempotency.js";

describe("createIdempotencyStore", () => {
  let redis: TestRedisServer;

  beforeAll(async () => {
    redis = await startRedisServer();
  });

  afterAll(async () => {
    await redis.stop();
  });

  it("uses process memory without REDIS_URL", async () => {
    const idempotency = await createIdempotencyStore(undefined);
    expect(idempotency.kind).toBe("memory");
    expect(idempotency.store).toBeInstanceOf(MemoryIdempotencyStore);
    await idempotency.close();
  });

  it("shares one Redis between two shop instances, so an event claimed by one is not run by the other", async () => {
    const first = await createIdempotencyStore(redis.url);
    const second = await createIdempotencyStore(redis.url);
    try {
      expect(first.kind).toBe("redis");
      expect(first.store).toBeInstanceOf(RedisIdempotencyStore);
      expect(await first.store.claim("qris:payment.success:h-1", "owner-a", 60_000)).toMatchObject({
        state: "claimed",
      });
      expect(await second.store.claim("qris:payment.success:h-1", "owner-b", 60_000)).toEqual({ state: "in_progress" });
      expect(await first.store.complete("qris:payment.success:h-1", "owner-a", 60_000)).toBe(true);
      expect(await second.store.claim("qris:payment.success:h-1", "owner-b", 60_000)).toEqual({ state: "completed" });
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("fails at start when Redis cannot be reached, instead of serving without dedup", async () => {
    const stopped = await startRedisServer();
    await stopped.stop();
    await expect(createIdempotencyStore(stopped.url)).rejects.toThrow(/^Cannot connect to the Redis of REDIS_URL: /);
  });
});
