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

const entry = (fetchedAt: number, courier = "jne"): RateEntry => ({
  fetchedAt,
  options: [
    { courier, code: "jne", name: "JNE", service: "REG", description: "Reguler", cost: 18_000, etd: "2-3 day" },
  ],
});

describe.each([
  ["ioredis", () => ioredis],
  ["node-redis", () => nodeRedis],
])("RedisRateStore through %s", (name, client) => {
  const prefix = `test:${name}:`;

  it("reads a quote's couriers from their route's hash in one HMGET, and expires the route after its TTL", async () => {
    const store = redisRateStore({ client: client(), keyPrefix: prefix });
    await store.set("a 1000", "jne", entry(1), 60_000);
    await store.set("a 1000", "pos", entry(2, "pos"), 60_000);
    expect(await store.get("a 1000", ["jne", "sicepat", "pos"])).toEqual([entry(1), undefined, entry(2, "pos")]);
    expect(await store.get("b 1000", ["jne"])).toEqual([undefined]);
    expect(await store.get("a 1000", [])).toEqual([]);
    expect((await ioredis.hkeys(`${prefix}a 1000`)).sort()).toEqual(["jne", "pos"]);
    expect(Number(await ioredis.pttl(`${prefix}a 1000`))).toBeGreaterThan(59_000);
    await store.set("short 1000", "jne", entry(3), 150);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await store.get("short 1000", ["jne"])).toEqual([undefined]);
  });

  it("ignores what is not an entry under its keys rather than serving it", async () => {
    const store = redisRateStore({ client: client(), keyPrefix: prefix });
    await ioredis.hset(
      `${prefix}junk 1000`,
      "jne",
      "not json",
      "pos",
      JSON.stringify({ fetchedAt: "yesterday", options: [] }),
    );
    expect(await store.get("junk 1000", ["jne", "pos"])).toEqual([undefined, undefined]);
  });

  it("deletes couriers of a route, and every route under a prefix (glob characters in it matched literally)", async () => {
    const store = new RedisRateStore({ client: client(), keyPrefix: prefix });
    for (const key of ["acct* 1 1000", "acct* 2 1000", "acctX 1 1000", "other 1 1000"]) {
      await store.set(key, "jne", entry(3), 60_000);
      await store.set(key, "pos", entry(4, "pos"), 60_000);
    }
    await store.delete("other 1 1000", ["jne"]);
    await store.deletePrefix("acct* ");
    const read = async (key: string) => store.get(key, ["jne", "pos"]);
    expect(await read("acct* 1 1000")).toEqual([undefined, undefined]);
    expect(await read("acct* 2 1000")).toEqual([undefined, undefined]);
    expect(await read("acctX 1 1000")).toEqual([entry(3), entry(4, "pos")]);
    expect(await read("other 1 1000")).toEqual([undefined, entry(4, "pos")]);
  });

  it("locks a question for one instance at a time; only the holder unlocks it; a lock expires by itself", async () => {
    const first = redisRateStore({ client: client(), keyPrefix: prefix });
    const second = redisRateStore({ client: client(), keyPrefix: prefix });
    expect(await first.lock("q 1000", "jne", 200)).toBe(true);
    expect(await second.lock("q 1000", "jne", 200)).toBe(false);
    expect(await second.lock("q 1000", "pos", 200)).toBe(true);
    await second.unlock("q 1000", "jne"); // not its lock: nothing happens
    expect(await second.lock("q 1000", "jne", 200)).toBe(false);
    await first.unlock("q 1000", "jne");
    expect(await second.lock("q 1000", "jne", 100)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await first.lock("q 1000", "jne", 100)).toBe(true);
  });
});

describe("RedisRateStore options", () => {
  it("refuses a client that is neither ioredis nor node-redis, and a non-string prefix", () => {
    expect(() => redisRateStore({ client: {} as never })).toThrow(/ioredis or node-redis/);
    expect(() => redisRateStore({ client: ioredis, keyPrefix: 5 as never })).toThrow(/keyPrefix must be a string/);
  });
});
