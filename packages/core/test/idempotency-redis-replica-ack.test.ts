// RedisIdempotencyStore's replicaAcknowledgement on a real master and replica (the replica's link through a link
// proxy that the test cuts): bad values refused when the store is built; with the replica linked every record a
// delivery's answer depends on is acknowledged; with the link cut, a claim is refused and withdrawn, a duplicate of a
// completed event is not answered 200, and a completion that no replica acknowledged makes the receiver release the
// claim and answer 503 (not 200), after which the provider's retry is answered 200 without a second run once the
// replica is back. With ioredis and with node-redis.
import {
  type LinkProxy,
  parseInfo,
  redisCommand,
  startLinkProxy,
  startRedisServer,
  type TestRedisServer,
} from "@kirimbayar/test-redis-server";
import IORedis from "ioredis";
import { createClient } from "redis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RedisIdempotencyStore } from "../src/redis.js";
import {
  createWebhookReceiver,
  IdempotencyRecordNotDurableError,
  IdempotencyStoreUnavailableError,
  tokenVerifier,
  WebhookConfigurationError,
} from "../src/webhooks.js";
import { qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

let master: TestRedisServer;
let replica: TestRedisServer;
let proxy: LinkProxy;
let ioredis: IORedis;
let nodeRedis: ReturnType<typeof createClient>;
const silent = { warn: () => {} };
const ACK = { replicas: 1, timeoutMs: 200 };

async function linked(): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const info = parseInfo(await redisCommand(replica.port, ["INFO", "replication"]));
    if (info.master_link_status === "up" && (await redisCommand(master.port, ["WAIT", "1", "100"])) === 1) return;
    if (Date.now() > deadline) throw new Error("the replica did not link up");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  master = await startRedisServer({ args: ["--repl-diskless-sync-delay", "0"] });
  proxy = await startLinkProxy({ targetPort: master.port });
  replica = await startRedisServer({ args: ["--replicaof", "127.0.0.1", String(proxy.port)] });
  await linked();
  ioredis = new IORedis(master.port, "127.0.0.1", { enableOfflineQueue: false, lazyConnect: true });
  await ioredis.connect();
  nodeRedis = createClient({ url: master.url, disableOfflineQueue: true });
  await nodeRedis.connect();
}, 30_000);

afterEach(async () => {
  proxy.healReplication();
  await linked();
});

afterAll(async () => {
  ioredis?.disconnect();
  await nodeRedis?.close();
  await replica?.stop();
  await proxy?.close();
  await master?.stop();
});

describe("replicaAcknowledgement options", () => {
  const client = { call: async () => null, pipeline: () => ({ call: () => {}, exec: async () => [] }) };
  it.each([
    [{ replicas: 0 }, /replicas must be a whole number of at least 1/],
    [{ replicas: 1.5 }, /replicas must be a whole number/],
    [{ replicas: "1" }, /replicas must be a whole number/],
    [{ replicas: 1, timeoutMs: 0 }, /timeoutMs must be a whole number of milliseconds from 1.*block forever/],
    [{ replicas: 1, timeoutMs: -5 }, /timeoutMs must be/],
    [{ replicas: 1, timeoutMs: Number.NaN }, /timeoutMs must be/],
    [{ replicas: 1, timeoutMs: 2 ** 31 }, /timeoutMs must be/],
    [null, /must be an object/],
    [1, /must be an object/],
  ])("refuses %j when the store is built", (replicaAcknowledgement, message) => {
    const build = () => new RedisIdempotencyStore({ client, logger: silent, replicaAcknowledgement } as never);
    expect(build).toThrow(WebhookConfigurationError);
    expect(build).toThrow(message);
  });

  it("refuses a client that cannot pipeline, and a bad operationTimeoutMs or keyPrefix", () => {
    const noPipeline = { call: async () => null };
    expect(
      () => new RedisIdempotencyStore({ client: noPipeline, logger: silent, replicaAcknowledgement: ACK }),
    ).toThrow(/needs a client that can pipeline/);
    expect(() => new RedisIdempotencyStore({ client, logger: silent, operationTimeoutMs: 0 })).toThrow(
      WebhookConfigurationError,
    );
    expect(() => new RedisIdempotencyStore({ client, logger: silent, keyPrefix: 5 as never })).toThrow(/keyPrefix/);
    expect(new RedisIdempotencyStore({ client, logger: silent, replicaAcknowledgement: { replicas: 2 } })).toBeTruthy();
  });
});

describe.each([
  ["ioredis", () => ioredis],
  ["node-redis", () => nodeRedis],
] as const)("with %s", (name, clientOf) => {
  let keys = 0;
  const key = () => `${name}-ack-${++keys}`;
  const store = () =>
    new RedisIdempotencyStore({
      client: clientOf() as never,
      keyPrefix: `ack:${name}:`,
      logger: silent,
      replicaAcknowledgement: ACK,
    });
  const onReplica = (k: string) => redisCommand(replica.port, ["GET", `ack:${name}:{${k}}`]);

  it("answers as without the option while the replica acknowledges, and the records are on the replica", async () => {
    const s = store();
    const k = key();
    expect(await s.claim(k, "o1", 10_000)).toEqual({ state: "claimed", attempt: 1 });
    expect(await onReplica(k)).toBe("p:o1");
    expect(await s.claim(k, "o2", 10_000)).toEqual({ state: "in_progress" });
    expect(await s.complete(k, "o1", 60_000)).toBe(true);
    expect(await onReplica(k)).toBe("done");
    expect(await s.claim(k, "o3", 10_000)).toEqual({ state: "completed" });
    expect(await s.release(k, "o3", 60_000)).toBe(false);
  });

  it("refuses a claim no replica acknowledged, and withdraws it", async () => {
    const s = store();
    const k = key();
    proxy.cutReplication();
    const claim = s.claim(k, "o1", 10_000);
    await expect(claim).rejects.toThrow(IdempotencyRecordNotDurableError);
    await expect(claim).rejects.toThrow(/Fewer than 1 Redis replica\(s\) acknowledged the claim within 200 ms/);
    await expect(claim).rejects.toBeInstanceOf(IdempotencyStoreUnavailableError);
    expect(await redisCommand(master.port, ["GET", `ack:${name}:{${k}}`])).toBeNull();
  });

  it("never answers a duplicate 200 for a completed record no replica has, nor a completion", async () => {
    const s = store();
    const k = key();
    expect((await s.claim(k, "o1", 10_000)).state).toBe("claimed");
    proxy.cutReplication();
    await expect(s.complete(k, "o1", 60_000)).rejects.toThrow(/acknowledged the completion/);
    // The master holds "done"; the replica does not.
    expect(await redisCommand(master.port, ["GET", `ack:${name}:{${k}}`])).toBe("done");
    expect(await onReplica(k)).toBe("p:o1");
    await expect(s.claim(k, "o2", 10_000)).rejects.toThrow(/acknowledged the completed record/);
    // A completion tried again finds it done and vouches for it only once the replica has it.
    await expect(s.complete(k, "o1", 60_000)).rejects.toThrow(IdempotencyRecordNotDurableError);
    proxy.healReplication();
    await linked();
    expect(await s.claim(k, "o2", 10_000)).toEqual({ state: "completed" });
    expect(await onReplica(k)).toBe("done");
  });

  it("makes the receiver answer 503 instead of 200 when the completion is not acknowledged, and run nothing twice", async () => {
    let runs = 0;
    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: "t", in: "query" })],
      idempotency: { store: store(), leaseMs: 5_000 },
      logger: { warn: () => {}, error: () => {} },
    }).on("payment.success", async () => {
      runs += 1;
      proxy.cutReplication(); // the link drops while the handler runs
    });
    const body = JSON.stringify(qrisSuccess({ qris_history_id: `${name}-receiver` }));
    const send = () => receiver.handle(webhookRequest({ url: "/q?token=t", rawBody: body }));
    expect((await send()).status).toBe(503);
    expect(runs).toBe(1);
    // Still cut: the retry is refused (503), not answered 200 and not run again.
    expect((await send()).status).toBe(503);
    expect(runs).toBe(1);
    proxy.healReplication();
    await linked();
    expect((await send()).status).toBe(200);
    expect(runs).toBe(1);
  });
});
