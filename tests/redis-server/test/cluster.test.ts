// The Redis Cluster harness: 3 masters + 3 replicas serving every slot; a manual CLUSTER FAILOVER swaps a master
// and its replica without losing a write; a SIGKILLed master is replaced by its replica, and the write made after
// its replication was cut is lost with it; the killed node rejoins as a replica.
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseInfo, redisCommand, startRedisCluster, type TestRedisCluster } from "../index.js";

let cluster: TestRedisCluster;

beforeAll(async () => {
  cluster = await startRedisCluster();
});

afterAll(() => cluster?.stop());

it("serves every slot with three masters, each with a linked replica", async () => {
  const masters = await cluster.masters();
  expect(masters).toHaveLength(3);
  expect(cluster.nodes).toHaveLength(6);
  for (const master of masters) {
    const replica = await cluster.replicaOf(master);
    expect(masters).not.toContain(replica);
    expect(parseInfo(await redisCommand(replica, ["INFO", "replication"])).master_link_status).toBe("up");
  }
  const info = parseInfo(await redisCommand(masters[0]!, ["CLUSTER", "INFO"]));
  expect({ state: info.cluster_state, slots: info.cluster_slots_ok }).toEqual({ state: "ok", slots: "16384" });
});

it("fails a master over with CLUSTER FAILOVER on its replica, keeping its writes", async () => {
  const master = await cluster.masterOfKey("{manual}k");
  const replica = await cluster.replicaOf(master);
  await redisCommand(master, ["SET", "{manual}k", "1"]);
  const failover = await cluster.failover(master);
  expect(failover.port).toBe(replica);
  expect(failover.seconds).toBeLessThan(30);
  expect(await cluster.masterOfKey("{manual}k")).toBe(replica);
  expect(await redisCommand(replica, ["GET", "{manual}k"])).toBe("1");
  expect(await cluster.replicaOf(replica)).toBe(master);
});

it("replaces a SIGKILLed master by its replica, losing what was written after the cut, and takes it back", async () => {
  const master = await cluster.masterOfKey("{killed}k");
  const replica = await cluster.replicaOf(master);
  await redisCommand(master, ["SET", "{killed}before", "1"]);
  expect(await redisCommand(master, ["WAIT", "1", "1000"])).toBe(1);
  cluster.cutReplication(master);
  await redisCommand(master, ["SET", "{killed}after", "1"]);
  expect(await redisCommand(master, ["WAIT", "1", "200"])).toBe(0);
  const failover = await cluster.kill(master);
  expect(failover.port).toBe(replica);
  expect(failover.seconds).toBeLessThan(30);
  expect(await redisCommand(replica, ["GET", "{killed}before"])).toBe("1");
  expect(await redisCommand(replica, ["GET", "{killed}after"])).toBeNull();
  cluster.healReplication();
  await cluster.restart(master);
  await cluster.waitUntilOk();
  expect(cluster.nodes.every((node) => node.running)).toBe(true);
  expect(await cluster.replicaOf(replica)).toBe(master);
}, 60_000);

it("fails over a master frozen past the node timeout, which rejoins as a replica once thawed", async () => {
  const master = await cluster.masterOfKey("{frozen}k");
  const replica = await cluster.replicaOf(master);
  cluster.freeze(master);
  try {
    await expect
      .poll(async () => parseInfo(await redisCommand(replica, ["INFO", "replication"])).role, { timeout: 15_000 })
      .toBe("master");
  } finally {
    cluster.thaw(master);
  }
  await cluster.waitUntilOk();
  expect(await cluster.masterOfKey("{frozen}k")).toBe(replica);
  expect(await cluster.replicaOf(replica)).toBe(master);
}, 60_000);
