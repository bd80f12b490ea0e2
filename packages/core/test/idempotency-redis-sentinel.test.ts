// Issue 37: Redis with a replica and Sentinel failover. One master, one replica, three sentinels (test-redis-server's
// Sentinel group); two app instances (real HTTP servers, each with its own Redis client in Sentinel mode) share the
// store; mid-campaign the replication link is cut (dropping what is in flight) and the master SIGKILLed a moment
// later, so the records of the deliveries answered in between exist on the dead master only. Sentinel promotes the
// replica, the clients follow it, and the killed node comes back (as its supervisor would restart it) as the new
// master's replica. The provider retries every non-200 answer every 200-400 ms, for a minute after that.
// With replicaAcknowledgement and one replica, every delivery is refused (503) from the failover until that replica
// is back: the figures show how long.
//
// Without replicaAcknowledgement the window is measured (events processed again after one of their deliveries was
// answered 200); with it, none may be, and nothing may be lost. ioredis and node-redis, each in its Sentinel mode.
// Each instance also writes a RedisDeliveryJournal through its client: the campaign reports how many of its entries
// were acknowledged and then taken back by the failover, and how many failed while it was under way.
// `pnpm test` runs small campaigns; `pnpm chaos` (KIRIMBAYAR_CHAOS=full) 1,000 events per campaign
// (KIRIMBAYAR_CHAOS_ROUNDS repeats each).
import { redisCommand, startSentinelGroup, type TestSentinelGroup } from "@kirimbayar/test-redis-server";
import IORedis from "ioredis";
import { createSentinel } from "redis";
import { afterEach, describe, expect, it } from "vitest";
import { RedisDeliveryJournal, RedisIdempotencyStore, type RedisIdempotencyStoreOptions } from "../src/redis.js";
import { type FaultOutcome, type JournalFigures, runFailoverCampaign } from "./support/failover-campaign.js";

const FULL = process.env.KIRIMBAYAR_CHAOS === "full";
const EVENTS = Number(process.env.KIRIMBAYAR_FAILOVER_EVENTS ?? (FULL ? 1_000 : 150));
const ROUNDS = Number(process.env.KIRIMBAYAR_CHAOS_ROUNDS ?? 1);
const RATE = FULL ? 150 : 100; // first tries per second
const WINDOW_MS = 300; // from the cut to the kill
const ACK = { replicas: 1, timeoutMs: 500 } as const;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let group: TestSentinelGroup | undefined;
const closers: (() => unknown)[] = [];

async function stopGroup(): Promise<void> {
  for (const close of closers.splice(0)) await close();
  await group?.stop();
  group = undefined;
}

afterEach(stopGroup);

type Library = "ioredis" | "node-redis";

/** A client in Sentinel mode as the Redis guide advises: fail fast while disconnected, reconnect quickly. */
async function sentinelClient(
  library: Library,
  sentinels: TestSentinelGroup,
): Promise<RedisIdempotencyStoreOptions["client"]> {
  if (library === "ioredis") {
    const client = new IORedis({
      sentinels: sentinels.sentinels.map(({ host, port }) => ({ host, port })),
      name: sentinels.masterName,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (times) => Math.min(times * 50, 500),
    });
    client.on("error", () => {});
    closers.push(() => client.disconnect());
    return client;
  }
  const client = createSentinel({
    name: sentinels.masterName,
    sentinelRootNodes: sentinels.sentinels.map(({ host, port }) => ({ host, port })),
    nodeClientOptions: {
      disableOfflineQueue: true,
      socket: { reconnectStrategy: (times) => Math.min(times * 50, 500) },
    },
    sentinelClientOptions: { socket: { reconnectStrategy: (times) => Math.min(times * 50, 500) } },
  });
  client.on("error", () => {});
  await client.connect();
  closers.push(() => client.close().catch(() => {}));
  return client as unknown as RedisIdempotencyStoreOptions["client"];
}

/** Cut the replication link, SIGKILL the master WINDOW_MS later, wait for the promotion and the old node's return. */
function cutThenKill(sentinels: TestSentinelGroup): () => Promise<FaultOutcome> {
  return async () => {
    sentinels.cutReplication();
    const windowOpenedAt = performance.now();
    await sleep(WINDOW_MS);
    const at = performance.now();
    await sentinels.killMaster();
    sentinels.healReplication();
    const promoted = await sentinels.waitForPromotion({ timeoutMs: 120_000 });
    // The full campaign restarts it as a supervisor would (Sentinel makes it a replica some 8 s later); the small one
    // as a replica at once, to stay short.
    await sentinels.restartKilled({ asReplica: !FULL });
    await sentinels.waitUntilReady(60_000);
    return { at, windowOpenedAt, failoverSeconds: promoted.seconds };
  };
}

async function campaign(library: Library, acknowledged: boolean) {
  group = await startSentinelGroup();
  const sentinels = group;
  // Each instance: its own client, shared by its store and its delivery journal (as an app would).
  const clients = await Promise.all([0, 1].map(() => sentinelClient(library, sentinels)));
  const journalPrefix = "{kirimbayar:journal}:";
  return runFailoverCampaign({
    name: `sentinel-${library}-${acknowledged ? "ack" : "plain"}`,
    events: EVENTS,
    stores: clients.map(
      (client) =>
        new RedisIdempotencyStore({
          client,
          keyPrefix: `sentinel:${library}:`,
          logger: { warn: () => {} },
          ...(acknowledged ? { replicaAcknowledgement: ACK } : {}),
        }),
    ),
    journals: {
      instances: clients.map((client) => new RedisDeliveryJournal({ client, keyPrefix: journalPrefix })),
      entries: async () => {
        const port = (await sentinels.master()).port;
        const stream = (await redisCommand(port, ["XRANGE", `${journalPrefix}stream`, "-", "+"])) as [
          string,
          string[],
        ][];
        return stream.map(([, fields]) => JSON.parse(fields[1] as string) as Record<string, unknown>);
      },
    },
    fault: cutThenKill(sentinels),
    deliveriesPerSecond: RATE,
  });
}

/**
 * Every answered delivery's journal entry was either acknowledged by Redis or reported failed, and every entry Redis
 * holds is one of them (acknowledged, or reported failed because it ran too late).
 */
function expectJournalAccounted(journal: JournalFigures | undefined): void {
  expect(journal).toBeDefined();
  const figures = journal as JournalFigures;
  expect(figures.acknowledged + figures.failed).toBe(figures.expected);
  expect(figures.present).toBe(figures.acknowledged - figures.acknowledgedThenLost + figures.failedButPresent);
}

describe.each(["ioredis", "node-redis"] as const)("Sentinel failover with %s", (library) => {
  it(
    `without replicaAcknowledgement: nothing lost; the re-runs after a 200 are counted`,
    async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const result = await campaign(library, false);
        // The window was open: deliveries were answered 200 on records no replica had.
        expect(result.answeredInWindow).toBeGreaterThan(0);
        expect(result.failoverSeconds).not.toBeNull();
        expect({ lost: result.lost, abandoned: result.abandoned }).toEqual({ lost: 0, abandoned: 0 });
        expectJournalAccounted(result.journal);
        await stopGroup();
      }
    },
    240_000 * ROUNDS,
  );

  it(
    `with replicaAcknowledgement ${JSON.stringify(ACK)}: nothing lost, nothing processed again after a 200`,
    async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const result = await campaign(library, true);
        expect(result.failoverSeconds).not.toBeNull();
        expect({ lost: result.lost, abandoned: result.abandoned, rerunsAfter200: result.rerunsAfter200 }).toEqual({
          lost: 0,
          abandoned: 0,
          rerunsAfter200: 0,
        });
        expectJournalAccounted(result.journal);
        await stopGroup();
      }
    },
    240_000 * ROUNDS,
  );
});
