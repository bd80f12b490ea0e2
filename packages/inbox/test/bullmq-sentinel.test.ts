// Issue 37: the BullMQ inbox under a Sentinel failover (one master, one replica, three sentinels). Two instances in
// inbox mode (each with its own BullMQ connection in Sentinel mode, worker and store client); mid-campaign the
// replication link is cut, dropping what is in flight, and the master SIGKILLed 300 ms later: a delivery answered
// 200 in between was queued on the dead master only. Sentinel promotes the replica; the killed node comes back as
// its replica. Measured: events answered 200 (queued) but never applied (lost) and applied twice, without and with
// the inbox's and the store's replicaAcknowledgement (with it: nothing lost, and no event run again once the store
// confirmed its completion; a run again after a completion that could not be confirmed stays possible, as without
// replicas). The workers are a little slower than the deliveries, so a backlog is queued when the master dies.
// `pnpm test` runs 100 events; `pnpm chaos` 1,000.
import { RedisIdempotencyStore } from "@kirimbayar/core/redis";
import { startSentinelGroup, type TestSentinelGroup } from "@kirimbayar/test-redis-server";
import { Redis } from "ioredis";
import { afterEach, expect, it } from "vitest";
import { createBullMqInbox } from "../src/engines/bullmq.js";
import type { InboxQueue } from "../src/types.js";
import { type InboxFault, runInboxFailoverCampaign } from "./support/inbox-failover.js";

const FULL = process.env.KIRIMBAYAR_CHAOS === "full";
const EVENTS = FULL ? 1_000 : 100;
const ROUNDS = Number(process.env.KIRIMBAYAR_CHAOS_ROUNDS ?? 1);
const ACK = { replicas: 1, timeoutMs: 500 } as const;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let group: TestSentinelGroup | undefined;
const closers: (() => unknown)[] = [];

async function stopAll(): Promise<void> {
  for (const close of closers.splice(0)) await close();
  await group?.stop();
  group = undefined;
}
afterEach(stopAll);

function cutThenKill(sentinels: TestSentinelGroup): () => Promise<InboxFault> {
  return async () => {
    sentinels.cutReplication();
    const windowOpenedAt = performance.now();
    await sleep(300);
    const at = performance.now();
    await sentinels.killMaster();
    sentinels.healReplication();
    const promoted = await sentinels.waitForPromotion({ timeoutMs: 120_000 });
    await sentinels.restartKilled({ asReplica: !FULL });
    await sentinels.waitUntilReady(60_000);
    return { at, windowOpenedAt, failoverSeconds: promoted.seconds };
  };
}

async function campaign(acknowledged: boolean) {
  group = await startSentinelGroup();
  const sentinels = group;
  const sentinelOptions = {
    sentinels: sentinels.sentinels.map(({ host, port }) => ({ host, port })),
    name: sentinels.masterName,
  };
  const name = `sentinel-inbox-${acknowledged ? "ack" : "plain"}`;
  const instances: { inbox: InboxQueue; store: RedisIdempotencyStore }[] = [];
  for (let i = 0; i < 2; i++) {
    const inbox = await createBullMqInbox({
      connection: sentinelOptions,
      name,
      prefix: "{kirimbayar}",
      lockDurationMs: 2_000,
      stalledIntervalMs: 500,
      ...(acknowledged ? { replicaAcknowledgement: ACK } : {}),
    });
    const client = new Redis({
      ...sentinelOptions,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (times) => Math.min(times * 50, 500),
    });
    client.on("error", () => {});
    closers.push(
      () => inbox.close().catch(() => {}),
      () => client.disconnect(),
    );
    const store = new RedisIdempotencyStore({
      client,
      keyPrefix: `${name}:`,
      logger: { warn: () => {} },
      ...(acknowledged ? { replicaAcknowledgement: ACK } : {}),
    });
    instances.push({ inbox, store });
  }
  return runInboxFailoverCampaign({
    name,
    events: EVENTS,
    instances,
    fault: cutThenKill(sentinels),
    deliveriesPerSecond: 100,
    drainTimeoutMs: FULL ? 60_000 : 8_000,
  });
}

it(
  "without replicaAcknowledgement: events answered 200 (queued) in the window are counted lost",
  async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const result = await campaign(false);
      expect(result.answeredInWindow).toBeGreaterThan(0);
      expect(result.failoverSeconds).not.toBeNull();
      expect(result.abandoned).toBe(0);
      // Every event the failover did not take back is applied.
      expect(result.lost).toBeLessThanOrEqual(result.answeredInWindow);
      await stopAll();
    }
  },
  240_000 * ROUNDS,
);

it(
  `with replicaAcknowledgement ${JSON.stringify(ACK)} on the inbox and the store: nothing lost, nothing applied twice`,
  async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const result = await campaign(true);
      expect(result.failoverSeconds).not.toBeNull();
      expect({
        lost: result.lost,
        abandoned: result.abandoned,
        rerunsAfterCompletion: result.rerunsAfterCompletion,
      }).toEqual({ lost: 0, abandoned: 0, rerunsAfterCompletion: 0 });
      await stopAll();
    }
  },
  240_000 * ROUNDS,
);
