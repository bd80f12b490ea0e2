// The Redis store and the Redis journal on a real Redis Cluster (3 masters + 3 replicas, test-redis-server's
// startRedisCluster), through ioredis Cluster and node-redis createCluster: the store's state-machine contract (with
// and without replicaAcknowledgement) and the journal's, events spread over every master with both keys of an event
// on one slot, each WAIT sent to the node that serves the event's key (not a random one) and following the slot to
// its new master after a failover, and a journal prefix without a hash tag refused with a cluster client.
import { redisCommand, startRedisCluster, type TestRedisCluster } from "@kirimbayar/test-redis-server";
import IORedis, { type Cluster as IORedisCluster } from "ioredis";
import { createCluster } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisDeliveryJournal, RedisIdempotencyStore, type RedisIdempotencyStoreOptions } from "../src/redis.js";
import { IdempotencyRecordNotDurableError } from "../src/webhooks.js";
import { journalStoreContract } from "./journal-stores/contract.js";
import { storeContract } from "./support/store-contract.js";

let cluster: TestRedisCluster;
let ioredis: IORedisCluster;
let nodeRedis: ReturnType<typeof createCluster>;
const silent = { warn: () => {} };
let prefixes = 0;

beforeAll(async () => {
  cluster = await startRedisCluster();
  ioredis = new IORedis.Cluster([...cluster.startupNodes], { enableOfflineQueue: false });
  ioredis.on("error", () => {});
  await new Promise((resolve) => ioredis.once("ready", resolve));
  nodeRedis = createCluster({
    rootNodes: cluster.startupNodes.map(({ host, port }) => ({ url: `redis://${host}:${port}` })),
    defaults: { disableOfflineQueue: true },
  });
  nodeRedis.on("error", () => {});
  await nodeRedis.connect();
}, 60_000);

afterAll(async () => {
  ioredis?.disconnect();
  await nodeRedis?.close();
  await cluster?.stop();
});

const clients = [
  ["ioredis Cluster", () => ioredis],
  ["node-redis cluster", () => nodeRedis],
] as const;

describe.each(clients)("RedisIdempotencyStore through %s", (_name, clientOf) => {
  const client = () => clientOf() as unknown as RedisIdempotencyStoreOptions["client"];
  describe("without replicaAcknowledgement", () => {
    storeContract(() => new RedisIdempotencyStore({ client: client(), keyPrefix: `c${prefixes++}:`, logger: silent }));
  });

  describe("with replicaAcknowledgement", () => {
    storeContract(
      () =>
        new RedisIdempotencyStore({
          client: client(),
          keyPrefix: `c${prefixes++}:`,
          logger: silent,
          replicaAcknowledgement: { replicas: 1, timeoutMs: 500 },
        }),
    );
  });

  it("spreads events over every master and keeps both keys of an event on one slot", async () => {
    const keyPrefix = `spread${prefixes++}:`;
    const store = new RedisIdempotencyStore({ client: client(), keyPrefix, logger: silent });
    const masters = new Set<number>();
    for (let i = 0; i < 30; i++) {
      await store.claim(`event-${i}`, "o", 10_000);
      await store.release(`event-${i}`, "o", 10_000);
      const recordKey = `${keyPrefix}{event-${i}}`;
      const slot = await redisCommand(cluster.startupNodes[0]!.port, ["CLUSTER", "KEYSLOT", recordKey]);
      expect(await redisCommand(cluster.startupNodes[0]!.port, ["CLUSTER", "KEYSLOT", `${recordKey}:attempts`])).toBe(
        slot,
      );
      masters.add(await cluster.masterOfKey(recordKey));
    }
    expect(masters.size).toBe(3);
  });

  it("waits for the replicas of the master that serves the event's key, not of another one", async () => {
    const keyPrefix = `route${prefixes++}:`;
    const store = new RedisIdempotencyStore({
      client: client(),
      keyPrefix,
      logger: silent,
      replicaAcknowledgement: { replicas: 1, timeoutMs: 300 },
    });
    // Two events on two different masters; only the first one's master loses its replica link.
    let other = 0;
    const cutMaster = await cluster.masterOfKey(`${keyPrefix}{a}`);
    while ((await cluster.masterOfKey(`${keyPrefix}{b${other}}`)) === cutMaster) other++;
    cluster.cutReplication(cutMaster);
    try {
      await expect(store.claim("a", "o", 10_000)).rejects.toThrow(IdempotencyRecordNotDurableError);
      expect(await store.claim(`b${other}`, "o", 10_000)).toEqual({ state: "claimed", attempt: 1 });
      expect(await store.complete(`b${other}`, "o", 60_000)).toBe(true);
    } finally {
      cluster.healReplication();
      await cluster.waitUntilOk();
    }
    expect(await store.claim("a", "o", 10_000)).toEqual({ state: "claimed", attempt: 1 });
  }, 30_000);
});

describe.each(clients)("after a failover, RedisIdempotencyStore through %s", (_name, clientOf) => {
  it("follows the slot to its new master at once, with replicaAcknowledgement (its WAIT pipelines too)", async () => {
    const keyPrefix = `moved${prefixes++}:`;
    const store = new RedisIdempotencyStore({
      client: clientOf() as unknown as RedisIdempotencyStoreOptions["client"],
      keyPrefix,
      logger: silent,
      replicaAcknowledgement: { replicas: 1, timeoutMs: 500 },
    });
    expect((await store.claim("before", "o", 10_000)).state).toBe("claimed");
    // The client still maps the slot to the old master, which now answers MOVED.
    const failover = await cluster.failover(await cluster.masterOfKey(`${keyPrefix}{after}`));
    expect(await cluster.masterOfKey(`${keyPrefix}{after}`)).toBe(failover.port);
    expect(await store.claim("after", "o", 10_000)).toEqual({ state: "claimed", attempt: 1 });
    expect(await store.complete("after", "o", 60_000)).toBe(true);
    expect(await store.claim("after", "o2", 10_000)).toEqual({ state: "completed" });
  }, 30_000);
});

describe.each(clients)("RedisDeliveryJournal through %s", (_name, clientOf) => {
  const client = () => clientOf() as unknown as RedisIdempotencyStoreOptions["client"];
  journalStoreContract(
    async (options = {}) => new RedisDeliveryJournal({ client: client(), keyPrefix: `{jc${prefixes++}}:`, ...options }),
  );

  it("refuses a key prefix without a hash tag, which would spread its keys over several slots", () => {
    for (const keyPrefix of ["kirimbayar:journal:", "{}:journal:", "}{journal:"]) {
      expect(() => new RedisDeliveryJournal({ client: client(), keyPrefix })).toThrow(/must carry a hash tag/);
    }
    expect(new RedisDeliveryJournal({ client: client() }).kind).toBe("redis");
  });
});
