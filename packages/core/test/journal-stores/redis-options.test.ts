// The Redis journal refuses what it cannot use when it is built, never at its first write.
import { describe, expect, it } from "vitest";
import { RedisDeliveryJournal } from "../../src/redis.js";

describe("RedisDeliveryJournal options", () => {
  it("refuses a client that is neither ioredis nor node-redis, naming both", () => {
    for (const client of [undefined, null, {}, { get: () => undefined }]) {
      expect(() => new RedisDeliveryJournal({ client: client as never })).toThrow(
        /RedisDeliveryJournal: client must be an ioredis or node-redis \(v4\/v5\) client/,
      );
    }
  });

  it("takes an ioredis-like client (call) and a node-redis-like client (sendCommand)", () => {
    const ioredis = { call: async () => null };
    const nodeRedis = { sendCommand: async () => null };
    expect(new RedisDeliveryJournal({ client: ioredis }).kind).toBe("redis");
    expect(new RedisDeliveryJournal({ client: nodeRedis }).kind).toBe("redis");
  });

  it("refuses a non-positive retention or entry bound", () => {
    const client = { call: async () => null };
    expect(() => new RedisDeliveryJournal({ client, maxEntries: 0 })).toThrow(/maxEntries/);
    expect(() => new RedisDeliveryJournal({ client, retentionMs: -1 })).toThrow(/retentionMs/);
  });
});
