// The rate quoter's Redis store against a real redis-server, through ioredis and through node-redis.
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import IORedis from "ioredis";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RateEntry } from "../../src/quoter.js";
import { RedisRateStore, redisRateStore } from "../../src/quoter-redis.js";

let redis: TestRedisServer;
let ioredis: IORedis;
let nodeRedis: ReturnType<typeof createClient>;

beforeAll(async () => {
  redis = await startRedisServer();
  ioredis = new IORedis(redis.url, { enableOfflineQueue: false, lazyConnect: true });
  await ioredis.connect();
  nodeRedis = createClient({ url: redis.url, disableOfflineQueue: true });
  await nodeRedis.connect();
});

afterAll(async () => {
  ioredis?.disconnect();
  await nodeRedis?.quit();
  await redis?.stop();
});

const entry = (fetchedAt: number): RateEntry => ({
  fetchedAt,
  options: [
    { courier: "jne", code: "jne", name: "JNE", service: "REG", description: "Reguler", cost: 18_000, etd: "2-3 day" },
  ],
});

describe.each([
  ["ioredis", () => ioredis],
  ["node-redis", () => nodeRedis],
])("RedisRateStore through %s", (name, client) => {
  const prefix = `test:${name}:`;

  it("reads a quote's couriers in one MGET, missing ones as undefined, and expires entries after their TTL", async () => {
    const store = redisRateStore({ client: client(), keyPrefix: prefix });
    await store.set("a jne", entry(1), 60_000);
    await store.set("a pos", entry(2), 150);
    expect(await store.get(["a jne", "a sicepat", "a pos"])).toEqual([entry(1), undefined, entry(2)]);
    expect(await store.get([])).toEqual([]);
    const ttl = Number(await ioredis.pttl(`${prefix}a jne`));
    expect(ttl).toBeGreaterThan(59_000);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await store.get(["a pos"])).toEqual([undefined]);
  });

  it("ignores what is not an entry under its keys rather than serving it", async () => {
    const store = redisRateStore({ client: client(), keyPrefix: prefix });
    await ioredis.set(`${prefix}junk`, "not json");
    await ioredis.set(`${prefix}shape`, JSON.stringify({ fetchedAt: "yesterday", options: [] }));
    expect(await store.get(["junk", "shape"])).toEqual([undefined, undefined]);
  });

  it("deletes keys, and every key under a prefix (glob characters in it matched literally)", async () => {
    const store = new RedisRateStore({ client: client(), keyPrefix: prefix });
    for (const key of ["acct* 1 jne", "acct* 2 jne", "acctX 1 jne", "other 1 jne"])
      await store.set(key, entry(3), 60_000);
    await store.delete(["other 1 jne"]);
    await store.deletePrefix("acct* ");
    expect(await store.get(["acct* 1 jne", "acct* 2 jne", "acctX 1 jne", "other 1 jne"])).toEqual([
      undefined,
      undefined,
      entry(3),
      undefined,
    ]);
  });

  it("locks a question for one instance at a time; only the holder unlocks it; a lock expires by itself", async () => {
    const first = redisRateStore({ client: client(), keyPrefix: prefix });
    const second = redisRateStore({ client: client(), keyPrefix: prefix });
    expect(await first.lock("q jne", 200)).toBe(true);
    expect(await second.lock("q jne", 200)).toBe(false);
    await second.unlock("q jne"); // not its lock: nothing happens
    expect(await second.lock("q jne", 200)).toBe(false);
    await first.unlock("q jne");
    expect(await second.lock("q jne", 100)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await first.lock("q jne", 100)).toBe(true);
  });
});

describe("RedisRateStore options", () => {
  it("refuses a client that is neither ioredis nor node-redis, and a non-string prefix", () => {
    expect(() => redisRateStore({ client: {} as never })).toThrow(/ioredis or node-redis/);
    expect(() => redisRateStore({ client: ioredis, keyPrefix: 5 as never })).toThrow(/keyPrefix must be a string/);
  });
});
