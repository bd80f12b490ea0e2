// The Sentinel group: ready with three sentinels that agree; a write made after the replication link was cut is
// acknowledged by the master and missing on the replica Sentinel promotes once the master is SIGKILLed (the window
// of asynchronous replication, opened on purpose); the killed node comes back as the new master's replica.
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseInfo, redisCommand, startSentinelGroup, type TestSentinelGroup } from "../index.js";

let group: TestSentinelGroup;

beforeAll(async () => {
  group = await startSentinelGroup();
});

afterAll(() => group?.stop());

it("starts one master, one linked replica and three sentinels that agree on the master", async () => {
  expect(group.sentinels).toHaveLength(3);
  const master = await group.master();
  const replica = await group.replica();
  expect(master.port).not.toBe(replica.port);
  expect(parseInfo(await redisCommand(master.port, ["INFO", "replication"])).role).toBe("master");
  const replication = parseInfo(await redisCommand(replica.port, ["INFO", "replication"]));
  expect({
    role: replication.role,
    link: replication.master_link_status,
    port: Number(replication.master_port),
  }).toEqual({ role: "slave", link: "up", port: master.port });
  for (const sentinel of group.sentinels) {
    expect(await redisCommand(sentinel.port, ["SENTINEL", "GET-MASTER-ADDR-BY-NAME", group.masterName])).toEqual([
      "127.0.0.1",
      String(master.port),
    ]);
  }
});

it("loses the writes made after the cut when the master is killed, promotes the replica, and takes the old one back", async () => {
  const master = await group.master();
  const replica = await group.replica();
  await redisCommand(master.port, ["SET", "replicated", "1"]);
  expect(await redisCommand(master.port, ["WAIT", "1", "1000"])).toBe(1);

  group.cutReplication();
  expect(group.replicationLinks).toBe(0);
  expect(await redisCommand(master.port, ["SET", "acknowledged-then-lost", "1"])).toBe("OK");
  expect(await redisCommand(master.port, ["WAIT", "1", "200"])).toBe(0);
  const killed = await group.killMaster();
  expect(killed).toEqual(master);
  const promoted = await group.waitForPromotion({ timeoutMs: 60_000 });
  expect(promoted.port).toBe(replica.port);
  expect(promoted.seconds).toBeGreaterThan(0);
  expect(promoted.seconds).toBeLessThan(60);
  expect(await group.master()).toEqual({ host: "127.0.0.1", port: replica.port });
  expect(await redisCommand(replica.port, ["GET", "replicated"])).toBe("1");
  expect(await redisCommand(replica.port, ["GET", "acknowledged-then-lost"])).toBeNull();

  group.healReplication();
  await group.restartKilled();
  await group.waitUntilReady(60_000);
  // Back as the replica of the promoted node (waitUntilReady waits for the link).
  const now = await group.master();
  const back = parseInfo(await redisCommand(master.port, ["INFO", "replication"]));
  expect(now.port).toBe(replica.port);
  expect({ role: back.role, port: Number(back.master_port) }).toEqual({ role: "slave", port: replica.port });
  expect(group.nodes.every((node) => node.running)).toBe(true);
}, 120_000);
