// Issue 37: the BullMQ inbox on a real Redis Cluster (3 masters + 3 replicas). A cluster connection needs a
// hash-tagged prefix ({kirimbayar}), refused without one when the inbox is built, like bad replicaAcknowledgement
// values. Then campaigns in inbox mode (two instances, each its own Cluster connection, worker and store client):
// the master serving the queue's slot is failed over mid-campaign with CLUSTER FAILOVER on its replica, and
// SIGKILLed right after its replication link was cut (dropping what is in flight). With the inbox's and the store's
// replicaAcknowledgement: nothing lost, no event run again once its completion was confirmed. Without: measured.
// `pnpm test` runs 100 events per campaign; `pnpm chaos` 1,000.
import { RedisIdempotencyStore } from "@kirimbayar/core/redis";
import { startRedisCluster, type TestRedisCluster } from "@kirimbayar/test-redis-server";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBullMqInbox } from "../src/engines/bullmq.js";
import type { InboxQueue } from "../src/types.js";
import { type InboxFault, runInboxFailoverCampaign } from "./support/inbox-failover.js";

const FULL = process.env.KIRIMBAYAR_CHAOS === "full";
const EVENTS = FULL ? 1_000 : 100;
const ROUNDS = Number(process.env.KIRIMBAYAR_CHAOS_ROUNDS ?? 1);
const ACK = { replicas: 1, timeoutMs: 500 } as const;
const PREFIX = "{kirimbayar}";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let cluster: TestRedisCluster;
const closers: (() => unknown)[] = [];

beforeAll(async () => {
  cluster = await startRedisCluster();
}, 60_000);

afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  await cluster?.stop();
});

function clusterConnection(failFast: boolean): Cluster {
  const nodes = cluster.startupNodes.map(({ host, port }) => ({ host, port }));
  const client = failFast
    ? new Cluster(nodes, {
        enableOfflineQueue: false,
        clusterRetryStrategy: (times) => Math.min(times * 50, 500),
        redisOptions: { maxRetriesPerRequest: 0 },
      })
    : new Cluster(nodes, { redisOptions: { maxRetriesPerRequest: null } }); // BullMQ's rule for workers
  client.on("error", () => {});
  closers.push(() => client.disconnect());
  return client;
}

describe("createBullMqInbox with a Redis Cluster", () => {
  const lazy = () => new Cluster([{ host: "127.0.0.1", port: 1 }], { lazyConnect: true });
  it("refuses a prefix without a hash tag (BullMQ's default included), before connecting", async () => {
    await expect(createBullMqInbox({ connection: lazy() })).rejects.toThrow(
      /hash-tagged prefix, e\.g\. prefix: "\{kirimbayar\}" \(got BullMQ's default "bull"\)/,
    );
    await expect(createBullMqInbox({ connection: lazy(), prefix: "kirimbayar" })).rejects.toThrow(TypeError);
    await expect(createBullMqInbox({ connection: lazy(), prefix: "{}" })).rejects.toThrow(/hash-tagged/);
  });

  it("refuses bad replicaAcknowledgement values, before connecting", async () => {
    for (const [value, message] of [
      [{ replicas: 0 }, /replicas must be a whole number of at least 1/],
      [{ replicas: 1, timeoutMs: 0 }, /timeoutMs must be a whole number.*block forever/],
      [{ replicas: 1.5 }, /replicas/],
      [null, /must be an object/],
    ] as const) {
      await expect(
        createBullMqInbox({ connection: lazy(), prefix: PREFIX, replicaAcknowledgement: value as never }),
      ).rejects.toThrow(message);
    }
  });
});

/** The master serving the queue's slot (every key of the queue shares the prefix's hash tag). */
const queueMaster = () => cluster.masterOfKey(PREFIX);

const manualFailover = async (): Promise<InboxFault> => {
  const at = performance.now();
  const failover = await cluster.failover(await queueMaster());
  return { at, failoverSeconds: failover.seconds };
};

const cutThenKill = async (): Promise<InboxFault> => {
  const master = await queueMaster();
  cluster.cutReplication(master);
  const windowOpenedAt = performance.now();
  await sleep(300);
  const at = performance.now();
  const failover = await cluster.kill(master, { timeoutMs: 120_000 });
  cluster.healReplication();
  await cluster.restart(master);
  await cluster.waitUntilOk(60_000);
  return { at, windowOpenedAt, failoverSeconds: failover.seconds };
};

async function campaign(kind: string, fault: () => Promise<InboxFault>, acknowledged: boolean) {
  const name = `cluster-inbox-${kind}-${acknowledged ? "ack" : "plain"}-${Date.now()}`;
  const instances: { inbox: InboxQueue; store: RedisIdempotencyStore }[] = [];
  for (let i = 0; i < 2; i++) {
    const inbox = await createBullMqInbox({
      connection: clusterConnection(false),
      name,
      prefix: PREFIX,
      lockDurationMs: 2_000,
      stalledIntervalMs: 500,
      ...(acknowledged ? { replicaAcknowledgement: ACK } : {}),
    });
    closers.unshift(() => inbox.close().catch(() => {}));
    const store = new RedisIdempotencyStore({
      client: clusterConnection(true),
      keyPrefix: `${name}:`,
      logger: { warn: () => {} },
      ...(acknowledged ? { replicaAcknowledgement: ACK } : {}),
    });
    instances.push({ inbox, store });
  }
  const result = await runInboxFailoverCampaign({
    name,
    events: EVENTS,
    instances,
    fault,
    deliveriesPerSecond: 100,
    drainTimeoutMs: FULL ? 60_000 : 8_000,
  });
  for (const close of closers.splice(0)) await close();
  return result;
}

describe("the BullMQ inbox through a cluster failover", () => {
  it(
    "CLUSTER FAILOVER, with replicaAcknowledgement: nothing lost, nothing run again once completed",
    async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const result = await campaign("manual", manualFailover, true);
        expect(result.failoverSeconds).not.toBeNull();
        expect({ lost: result.lost, abandoned: result.abandoned, after: result.rerunsAfterCompletion }).toEqual({
          lost: 0,
          abandoned: 0,
          after: 0,
        });
      }
    },
    240_000 * ROUNDS,
  );

  it(
    "SIGKILL after the link was cut, with replicaAcknowledgement: nothing lost, nothing run again once completed",
    async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const result = await campaign("kill", cutThenKill, true);
        expect(result.failoverSeconds).not.toBeNull();
        expect({ lost: result.lost, abandoned: result.abandoned, after: result.rerunsAfterCompletion }).toEqual({
          lost: 0,
          abandoned: 0,
          after: 0,
        });
      }
    },
    240_000 * ROUNDS,
  );

  it(
    "SIGKILL after the link was cut, without replicaAcknowledgement: measured",
    async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const result = await campaign("kill", cutThenKill, false);
        expect(result.answeredInWindow).toBeGreaterThan(0);
        expect(result.abandoned).toBe(0);
        expect(result.lost).toBeLessThanOrEqual(result.answeredInWindow);
      }
    },
    240_000 * ROUNDS,
  );
});
