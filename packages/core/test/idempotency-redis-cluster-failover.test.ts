// Issue 37: Redis Cluster failover mid-campaign (3 masters + 3 replicas, test-redis-server's startRedisCluster). Two
// app instances (real HTTP servers, each with its own cluster client) share the store; events spread over every
// master. A master is failed over both ways a production cluster does it: `CLUSTER FAILOVER` on its replica (the
// replica catches up first) and SIGKILL, right after its replication link was cut (dropping what is in flight) so
// that the records answered in between exist on the dead master only; the killed node then comes back and rejoins
// as a replica. And the outage campaign's freeze: the master SIGSTOPped past cluster-node-timeout (its replica takes
// over), then resumed. The provider retries every non-200 answer every 200-400 ms, for a minute after that.
//
// Goals with replicaAcknowledgement: nothing lost, nothing processed again after a 200, both ways. Without it, the
// SIGKILL campaign measures the window. ioredis Cluster and node-redis createCluster. `pnpm test` runs small
// campaigns; `pnpm chaos` (KIRIMBAYAR_CHAOS=full) 1,000 events per campaign.
import { parseInfo, redisCommand, startRedisCluster, type TestRedisCluster } from "@kirimbayar/test-redis-server";
import IORedis from "ioredis";
import { createCluster } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisIdempotencyStore, type RedisIdempotencyStoreOptions } from "../src/redis.js";
import { type FaultOutcome, runFailoverCampaign } from "./support/failover-campaign.js";

const FULL = process.env.KIRIMBAYAR_CHAOS === "full";
const EVENTS = Number(process.env.KIRIMBAYAR_FAILOVER_EVENTS ?? (FULL ? 1_000 : 150));
const ROUNDS = Number(process.env.KIRIMBAYAR_CHAOS_ROUNDS ?? 1);
const RATE = FULL ? 150 : 100; // first tries per second
const WINDOW_MS = 300; // from the cut to the kill
const ACK = { replicas: 1, timeoutMs: 500 } as const;
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

type Library = "ioredis" | "node-redis";

/** A cluster client as the Redis guide advises: fail fast while a node is away, reconnect and rediscover quickly. */
async function clusterClient(library: Library): Promise<RedisIdempotencyStoreOptions["client"]> {
  const nodes = cluster.startupNodes.map(({ host, port }) => ({ host, port }));
  if (library === "ioredis") {
    const client = new IORedis.Cluster(nodes, {
      enableOfflineQueue: false,
      clusterRetryStrategy: (times) => Math.min(times * 50, 500),
      redisOptions: { maxRetriesPerRequest: 0 },
    });
    client.on("error", () => {});
    await new Promise((resolve) => client.once("ready", resolve));
    closers.push(() => client.disconnect());
    return client as unknown as RedisIdempotencyStoreOptions["client"];
  }
  const client = createCluster({
    rootNodes: nodes.map(({ host, port }) => ({ url: `redis://${host}:${port}` })),
    defaults: { disableOfflineQueue: true, socket: { reconnectStrategy: (times) => Math.min(times * 50, 500) } },
  });
  client.on("error", () => {});
  await client.connect();
  closers.push(() => client.close().catch(() => {}));
  return client as unknown as RedisIdempotencyStoreOptions["client"];
}

/** `CLUSTER FAILOVER` on a replica of the first master. */
const manualFailover = async (): Promise<FaultOutcome> => {
  const [master] = await cluster.masters();
  const at = performance.now();
  const failover = await cluster.failover(master as number);
  return { at, failoverSeconds: failover.seconds };
};

/** Cut the first master's replication link, SIGKILL it WINDOW_MS later, and bring it back once replaced. */
const cutThenKill = async (): Promise<FaultOutcome> => {
  const [master] = (await cluster.masters()) as [number];
  cluster.cutReplication(master);
  const windowOpenedAt = performance.now();
  await sleep(WINDOW_MS);
  const at = performance.now();
  const failover = await cluster.kill(master, { timeoutMs: 120_000 });
  cluster.healReplication();
  await cluster.restart(master);
  await cluster.waitUntilOk(60_000);
  return { at, windowOpenedAt, failoverSeconds: failover.seconds };
};

/**
 * The outage campaign's freeze on a cluster: the first master frozen (SIGSTOP) until its replica took over (past
 * cluster-node-timeout), then thawed. Commands it had received run when it wakes, before it learns it was replaced.
 */
const freezePastTimeout = async (): Promise<FaultOutcome> => {
  const [master] = (await cluster.masters()) as [number];
  const replica = await cluster.replicaOf(master);
  const at = performance.now();
  cluster.freeze(master);
  try {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(50)) {
      const info = parseInfo(await redisCommand(replica, ["INFO", "replication"]));
      if (info.role === "master") break;
    }
  } finally {
    await sleep(500);
    cluster.thaw(master);
  }
  const failoverSeconds = Math.round((performance.now() - at) / 100) / 10;
  await cluster.waitUntilOk(60_000);
  return { at, failoverSeconds };
};

async function campaign(library: Library, fault: () => Promise<FaultOutcome>, name: string, acknowledged: boolean) {
  const keyPrefix = `cluster:${name}:${library}:${Date.now()}:`; // one key space, shared by both instances
  const stores = await Promise.all(
    [0, 1].map(
      async () =>
        new RedisIdempotencyStore({
          client: await clusterClient(library),
          keyPrefix,
          logger: { warn: () => {} },
          ...(acknowledged ? { replicaAcknowledgement: ACK } : {}),
        }),
    ),
  );
  const result = await runFailoverCampaign({
    name: `cluster-${name}-${library}-${acknowledged ? "ack" : "plain"}`,
    events: EVENTS,
    stores,
    fault,
    deliveriesPerSecond: RATE,
  });
  for (const close of closers.splice(0)) await close();
  return result;
}

describe.each(["ioredis", "node-redis"] as const)("Redis Cluster failover with %s", (library) => {
  it(
    `CLUSTER FAILOVER, with replicaAcknowledgement: nothing lost, nothing processed again after a 200`,
    async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const result = await campaign(library, manualFailover, "manual", true);
        expect(result.failoverSeconds).not.toBeNull();
        expect({ lost: result.lost, abandoned: result.abandoned, rerunsAfter200: result.rerunsAfter200 }).toEqual({
          lost: 0,
          abandoned: 0,
          rerunsAfter200: 0,
        });
      }
    },
    240_000 * ROUNDS,
  );

  it(
    `SIGKILL after the link was cut, with replicaAcknowledgement: nothing lost, nothing processed again after a 200`,
    async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const result = await campaign(library, cutThenKill, "kill", true);
        expect(result.failoverSeconds).not.toBeNull();
        expect({ lost: result.lost, abandoned: result.abandoned, rerunsAfter200: result.rerunsAfter200 }).toEqual({
          lost: 0,
          abandoned: 0,
          rerunsAfter200: 0,
        });
      }
    },
    240_000 * ROUNDS,
  );

  it(
    `frozen past the node timeout and thawed, with replicaAcknowledgement: nothing lost, nothing processed again after a 200`,
    async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const result = await campaign(library, freezePastTimeout, "freeze", true);
        expect(result.failoverSeconds).not.toBeNull();
        expect({ lost: result.lost, abandoned: result.abandoned, rerunsAfter200: result.rerunsAfter200 }).toEqual({
          lost: 0,
          abandoned: 0,
          rerunsAfter200: 0,
        });
      }
    },
    240_000 * ROUNDS,
  );

  it(
    `SIGKILL after the link was cut, without replicaAcknowledgement: nothing lost; re-runs after a 200 counted`,
    async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const result = await campaign(library, cutThenKill, "kill", false);
        expect(result.answeredInWindow).toBeGreaterThan(0);
        expect(result.failoverSeconds).not.toBeNull();
        expect({ lost: result.lost, abandoned: result.abandoned }).toEqual({ lost: 0, abandoned: 0 });
      }
    },
    240_000 * ROUNDS,
  );
});
