// RedisDeliveryJournal on a real redis-server: the journal contract through ioredis and node-redis, batching (many
// record() calls, few script calls), the capped stream's bound, a search by reference that reads only its index,
// a Redis that refuses writes (a typed error without the entry's values), and the Redis store's inspect().
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import IORedis from "ioredis";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeliveryJournalWriteError, RedisDeliveryJournal, RedisIdempotencyStore } from "../../src/redis.js";
import { journalContract } from "../support/journal-contract.js";
import { entry, journalStoreContract, unique } from "./contract.js";

let server: TestRedisServer;
let ioredis: IORedis;
let nodeRedis: ReturnType<typeof createClient>;
let prefixes = 0;
const prefix = () => `{journal-test-${prefixes++}}:`;

beforeAll(async () => {
  server = await startRedisServer();
  ioredis = new IORedis(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  await new Promise((resolve) => ioredis.once("ready", resolve));
  nodeRedis = createClient({ url: server.url });
  await nodeRedis.connect();
}, 60_000);

afterAll(async () => {
  ioredis?.disconnect();
  await nodeRedis?.quit();
  await server?.stop();
});

describe("RedisDeliveryJournal through ioredis", () => {
  journalStoreContract(
    async (options = {}) => new RedisDeliveryJournal({ client: ioredis, keyPrefix: prefix(), ...options }),
  );
});

describe("RedisDeliveryJournal through node-redis", () => {
  journalStoreContract(
    async (options = {}) => new RedisDeliveryJournal({ client: nodeRedis, keyPrefix: prefix(), ...options }),
  );
});

describe("RedisDeliveryJournal", () => {
  it("gathers many record() calls into a few script calls", async () => {
    let scripts = 0;
    const counting = {
      call: (command: string, ...args: (string | number)[]) => {
        if (command === "EVALSHA" || command === "EVAL") scripts++;
        return ioredis.call(command, ...args);
      },
    };
    const keyPrefix = prefix();
    const journal = new RedisDeliveryJournal({ client: counting, keyPrefix });
    await Promise.all(Array.from({ length: 1_000 }, () => journal.record([entry()])));
    expect(scripts).toBeGreaterThanOrEqual(5);
    expect(scripts).toBeLessThanOrEqual(8);
    expect(await ioredis.xlen(`${keyPrefix}stream`)).toBe(1_000);
    await journal.close();
  });

  it("keeps the stream within its bound, and a reference whose entries were trimmed finds nothing", async () => {
    const keyPrefix = prefix();
    const journal = new RedisDeliveryJournal({ client: ioredis, keyPrefix, maxEntries: 100 });
    const first = entry();
    await journal.record([first]);
    for (let batch = 0; batch < 10; batch++) await journal.record(Array.from({ length: 200 }, () => entry()));
    const last = entry();
    await journal.record([last]);
    // MAXLEN ~ trims whole stream nodes (100 entries each by default): at most one node more than asked.
    const length = await ioredis.xlen(`${keyPrefix}stream`);
    expect(length).toBeGreaterThanOrEqual(100);
    expect(length).toBeLessThanOrEqual(300);
    expect(await journal.search({ reference: first.idempotencyKey as string })).toEqual([]);
    expect(await journal.search({ reference: last.idempotencyKey as string })).toHaveLength(1);
    // Indexes expire with the retention.
    const ttl = await ioredis.pttl(`${keyPrefix}refs:${last.idempotencyKey}`);
    expect(ttl).toBeGreaterThan(6 * 24 * 3_600_000);
    await journal.close();
  });

  it("keeps one reference's index bounded when a sender floods it", async () => {
    const keyPrefix = prefix();
    const journal = new RedisDeliveryJournal({ client: ioredis, keyPrefix, maxPerReference: 50 });
    const history = unique("flood");
    await journal.record(
      Array.from({ length: 300 }, (_, i) =>
        entry({ at: Date.now() - 300 + i, references: { qris_history_id: history } }),
      ),
    );
    // The index is cut back to the newest 50 each time it holds more than 50 and a quarter.
    const kept = String(await ioredis.get(`${keyPrefix}refs:${history}`)).split(",");
    expect(kept.length).toBeGreaterThanOrEqual(50);
    expect(kept.length).toBeLessThanOrEqual(63);
    expect(new Set(kept).size).toBe(kept.length);
    const found = await journal.search({ reference: history, limit: 1_000 });
    expect(found).toHaveLength(50);
    expect(found[0]?.at).toBeGreaterThan(found[49]?.at as number);
    await journal.close();
  });

  it("rejects with a typed error, without the entry's values, when Redis refuses writes", async () => {
    const readOnly = await startRedisServer({ args: ["--replicaof", "127.0.0.1", "1"] });
    const client = new IORedis(readOnly.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    try {
      await new Promise((resolve) => client.once("ready", resolve));
      const journal = new RedisDeliveryJournal({ client, keyPrefix: prefix() });
      const secret = "sk_live_SECRET_must_not_leak";
      const error = await journal
        .record([entry({ references: { qris_history_id: secret }, error: `token=${secret}` })])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DeliveryJournalWriteError);
      const shown = JSON.stringify(error, Object.getOwnPropertyNames(error)) + String((error as Error).cause);
      expect(shown).toMatch(/READONLY|read only/i);
      expect(shown).not.toContain(secret);
      await journal.close();
    } finally {
      client.disconnect();
      await readOnly.stop();
    }
  });
});

describe("RedisIdempotencyStore.inspect", () => {
  it("shows the record's state and attempts, never its owner", async () => {
    const store = new RedisIdempotencyStore({ client: ioredis, keyPrefix: prefix() });
    const key = unique("evt");
    expect(await store.inspect(key)).toBeUndefined();
    await store.claim(key, "owner-secret-token", 60_000);
    const held = await store.inspect(key);
    expect(held).toMatchObject({ key, state: "in_progress", attempt: 1 });
    expect(held?.expiresAt).toBeGreaterThan(Date.now());
    expect(JSON.stringify(held)).not.toContain("owner-secret-token");
    await store.release(key, "owner-secret-token", 60_000);
    expect(await store.inspect(key)).toMatchObject({ state: "released", attempt: 1 });
    await store.claim(key, "o2", 60_000);
    expect(await store.inspect(key)).toMatchObject({ state: "in_progress", attempt: 2 });
    await store.complete(key, "o2", 3_600_000);
    const done = await store.inspect(key);
    expect(done).toMatchObject({ state: "completed" });
    expect(done?.expiresAt).toBeGreaterThan(Date.now() + 3_000_000);
  });
});

describe("RedisDeliveryJournal: the shared journal contract", () => {
  journalContract(
    async ({ retentionMs }) => new RedisDeliveryJournal({ client: ioredis, keyPrefix: prefix(), retentionMs }),
  );
});
