// Issue 15, item 2: a Redis outage shorter than the lease applies no event twice and loses none. A real
// redis-server with AOF `appendfsync always` (nothing it acknowledged is lost) is killed (SIGKILL) and restarted,
// or frozen (SIGSTOP) and resumed, in the middle of a stream of deliveries with 30 % duplicates, spread over two
// receivers (two app instances) that share it. The provider simulator retries every non-200 answer.
// Each campaign reports its recovery time: from Redis's return until every event first sent before it is applied.
// `pnpm test` runs a small campaign; `pnpm chaos` (KIRIMBAYAR_CHAOS=full) the full one: 1,000 events per scenario,
// three rounds each.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisIdempotencyStore } from "../src/redis.js";
import { createWebhookReceiver, tokenVerifier, type WebhookReceiver } from "../src/webhooks.js";
import { qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const FULL = process.env.KIRIMBAYAR_CHAOS === "full";
const EVENTS = FULL ? 1_000 : 200;
const ROUNDS = Number(process.env.KIRIMBAYAR_CHAOS_ROUNDS ?? (FULL ? 3 : 1));
const DUPLICATE_SHARE = 0.3;
const LEASE_MS = 2_000;
const OUTAGE_MS = 1_500; // shorter than the lease
const LONG_OUTAGE_MS = 3_000; // longer than the lease: measured, documented, not a goal
const SENDERS = 16;
const TOKEN = "fault-campaign-token";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let redis: TestRedisServer;
let dataDir: string;
const clients: IORedis[] = [];
// Every campaign's figures, written as JSON to KIRIMBAYAR_FAULTS_REPORT when set (bench/redis-faults reads them).
const reports: {
  name: string;
  events: number;
  deliveries: number;
  statuses: Record<number, number>;
  doubles: number;
  lost: number;
  recoverySeconds: number | null;
}[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "kirimbayar-redis-aof-"));
  redis = await startRedisServer({
    args: ["--appendonly", "yes", "--appendfsync", "always", "--dir", dataDir, "--appendfilename", "faults.aof"],
  });
});

afterAll(async () => {
  const reportPath = process.env.KIRIMBAYAR_FAULTS_REPORT;
  if (reportPath) writeFileSync(reportPath, JSON.stringify(reports));
  for (const client of clients) client.disconnect();
  await redis?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** A client set up as the store's README advises: fail fast while disconnected, reconnect quickly. */
function client(): IORedis {
  const created = new IORedis(redis.port, "127.0.0.1", {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => 50,
  });
  created.on("error", () => {});
  clients.push(created);
  return created;
}

interface CampaignResult {
  events: number;
  deliveries: number;
  statuses: Record<number, number>;
  doubles: number;
  lost: number;
  /**
   * From Redis's return (restarted or resumed) until every event whose first delivery was sent before it is answered
   * 200, i.e. applied (`null`: one never was).
   */
  recoverySeconds: number | null;
}

/** A fault: resolves with the time (performance.now()) Redis is back. */
type Fault = () => Promise<number>;

/**
 * Sends every event once plus 30 % duplicates, in random order over two receivers sharing the Redis, with
 * `fault` started after a third of the deliveries got an answer; retries each non-200 answer until 200.
 */
async function campaign(name: string, fault: Fault, prefix: string): Promise<CampaignResult> {
  const effects = new Map<string, number>();
  const instances: WebhookReceiver<"qris">[] = [0, 1].map(() =>
    createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      idempotency: {
        store: new RedisIdempotencyStore({ client: client(), keyPrefix: prefix, operationTimeoutMs: 300 }),
        leaseMs: LEASE_MS,
      },
      logger: { warn: () => {}, error: () => {} },
    }).on("payment.success", async (event) => {
      await sleep(1 + Math.random() * 19);
      const id = String(event.data.qris_history_id);
      effects.set(id, (effects.get(id) ?? 0) + 1);
    }),
  );
  const ids = Array.from({ length: EVENTS }, (_, i) => `${name}-${i}`);
  const queue = [...ids, ...ids.filter(() => Math.random() < DUPLICATE_SHARE)].sort(() => Math.random() - 0.5);
  const deliveries = queue.length;
  const statuses: Record<number, number> = {};
  let answered = 0;
  let faultStarted: Promise<number> | undefined;
  const firstSentAt = new Map<string, number>();
  const appliedAt = new Map<string, number>();
  const deadline = Date.now() + 60_000;

  async function sender(): Promise<void> {
    while (queue.length > 0 && Date.now() < deadline) {
      const id = queue.shift() as string;
      if (!firstSentAt.has(id)) firstSentAt.set(id, performance.now());
      for (let attempt = 0; Date.now() < deadline && attempt < 400; attempt++) {
        const receiver = instances[Math.floor(Math.random() * instances.length)] as WebhookReceiver<"qris">;
        const body = JSON.stringify(qrisSuccess({ qris_history_id: id }));
        const response = await receiver.handle(webhookRequest({ url: `/q?token=${TOKEN}`, rawBody: body }));
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        if (response.status === 200) {
          if (!appliedAt.has(id)) appliedAt.set(id, performance.now());
          break;
        }
        await sleep(50 + Math.random() * 100); // the provider's retry, compressed
      }
      answered++;
      if (faultStarted === undefined && answered >= deliveries / 3) faultStarted = fault();
    }
  }
  await Promise.all(Array.from({ length: SENDERS }, sender));
  const backAt = (await faultStarted) ?? Number.NaN;
  const doubles = ids.filter((id) => (effects.get(id) ?? 0) > 1).length;
  const lost = ids.filter((id) => (effects.get(id) ?? 0) === 0).length;
  const hit = ids.filter((id) => (firstSentAt.get(id) ?? Number.POSITIVE_INFINITY) < backAt);
  const lastApplied = Math.max(backAt, ...hit.map((id) => appliedAt.get(id) ?? Number.POSITIVE_INFINITY));
  const recoverySeconds = Number.isFinite(lastApplied) ? Math.round((lastApplied - backAt) / 100) / 10 : null;
  const result = { events: EVENTS, deliveries, statuses, doubles, lost, recoverySeconds };
  console.log(`[faults] ${name}: ${JSON.stringify(result)}`);
  reports.push({ name, ...result });
  return result;
}

const killAndRestart: Fault = async () => {
  await redis.crash();
  await sleep(OUTAGE_MS);
  await redis.start();
  return performance.now();
};
const freezeFor =
  (ms: number): Fault =>
  async () => {
    redis.freeze();
    await sleep(ms);
    redis.thaw();
    return performance.now();
  };
/** Every event hit by a fault applied within this long of Redis's return (issue 29's goal). */
const RECOVERY_BOUND_S = 60;

describe("Redis outages shorter than the lease (AOF appendfsync always, two instances, 30 % duplicates)", () => {
  it(
    `killed (SIGKILL) and restarted ${OUTAGE_MS} ms later: every event applied exactly once`,
    async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const result = await campaign(`kill-${round}`, killAndRestart, `faults:kill:${round}:`);
        expect(result.statuses[503] ?? 0).toBeGreaterThan(0); // the outage did happen mid-stream
        expect({ doubles: result.doubles, lost: result.lost }).toEqual({ doubles: 0, lost: 0 });
        expect(result.recoverySeconds).not.toBeNull();
        expect(result.recoverySeconds).toBeLessThanOrEqual(RECOVERY_BOUND_S);
      }
    },
    120_000 * ROUNDS,
  );

  it(
    `frozen (SIGSTOP) for ${OUTAGE_MS} ms: every event applied exactly once`,
    async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const result = await campaign(`freeze-${round}`, freezeFor(OUTAGE_MS), `faults:freeze:${round}:`);
        expect((result.statuses[503] ?? 0) + (result.statuses[409] ?? 0)).toBeGreaterThan(0);
        expect({ doubles: result.doubles, lost: result.lost }).toEqual({ doubles: 0, lost: 0 });
        expect(result.recoverySeconds).not.toBeNull();
        expect(result.recoverySeconds).toBeLessThanOrEqual(RECOVERY_BOUND_S);
      }
    },
    120_000 * ROUNDS,
  );
});

describe("a Redis outage longer than the lease (documented, not a goal)", () => {
  it(`frozen for ${LONG_OUTAGE_MS} ms: nothing is lost; a double effect is possible and is reported`, async () => {
    const result = await campaign("long-freeze", freezeFor(LONG_OUTAGE_MS), "faults:long:");
    expect(result.lost).toBe(0);
    expect(result.recoverySeconds).not.toBeNull();
    expect(result.recoverySeconds).toBeLessThanOrEqual(RECOVERY_BOUND_S);
  }, 120_000);
});
