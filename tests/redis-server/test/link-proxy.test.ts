// The link proxy tells a replica's link apart from clients: cutting replication drops the replica's connection and
// what it had in flight, keeps clients connected, refuses the replica until healed, and the replica then resyncs.
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseInfo, redisCommand, startLinkProxy, startRedisServer, type TestRedisServer } from "../index.js";

let master: TestRedisServer;
let replica: TestRedisServer | undefined;
let proxy: Awaited<ReturnType<typeof startLinkProxy>>;

beforeAll(async () => {
  master = await startRedisServer({ args: ["--repl-diskless-sync-delay", "0"] });
  proxy = await startLinkProxy({ targetPort: master.port });
});

afterAll(async () => {
  await replica?.stop();
  await proxy?.close();
  await master?.stop();
});

const link = async (port: number) => parseInfo(await redisCommand(port, ["INFO", "replication"])).master_link_status;

async function until(check: () => Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it("cuts only the replication link, refuses it until healed, and lets the replica resync afterwards", async () => {
  replica = await startRedisServer({ args: ["--replicaof", "127.0.0.1", String(proxy.port)] });
  await until(async () => (await link(replica!.port)) === "up");
  expect(proxy.replicationLinks).toBe(1);
  await redisCommand(proxy.port, ["SET", "before", "1"]);
  await until(async () => (await redisCommand(replica!.port, ["GET", "before"])) === "1");

  proxy.cutReplication();
  expect(proxy.replicationLinks).toBe(0);
  expect(proxy.cutLinks).toBe(1);
  // A client through the proxy still works; the write after the cut reaches no replica.
  expect(await redisCommand(proxy.port, ["SET", "after", "1"])).toBe("OK");
  expect(await redisCommand(proxy.port, ["WAIT", "1", "300"])).toBe(0);
  await until(async () => (await link(replica!.port)) === "down");
  // The replica tries again about once a second: still refused two seconds later.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(await link(replica.port)).toBe("down");
  expect(await redisCommand(replica.port, ["GET", "after"])).toBeNull();

  proxy.healReplication();
  await until(async () => (await link(replica!.port)) === "up");
  await until(async () => (await redisCommand(replica!.port, ["GET", "after"])) === "1");
  expect(await redisCommand(proxy.port, ["WAIT", "1", "1000"])).toBe(1);
});
