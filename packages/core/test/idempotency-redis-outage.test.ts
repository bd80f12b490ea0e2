// Redis stopped in the middle of a run: deliveries get 503 and their handlers do not run, nothing is marked
// completed without its handler finishing, and every event is processed exactly once after Redis is back.

import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisIdempotencyStore } from "../src/redis.js";
import { createWebhookReceiver, tokenVerifier } from "../src/webhooks.js";
import { qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const TOKEN = "outage-token";
const EVENTS = 300;
const PREFIX = "outage:";

let redis: TestRedisServer;
let client: IORedis;

beforeAll(async () => {
  redis = await startRedisServer();
  // Fail fast while disconnected and reconnect quickly, as the store's documentation advises.
  client = new IORedis(redis.port, "127.0.0.1", {
    enableOfflineQueue: false,
    lazyConnect: true,
    retryStrategy: () => 50,
    maxRetriesPerRequest: 0,
  });
  client.on("error", () => {});
  await client.connect();
});

afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Redis outage in the middle of a run", () => {
  it("answers 503 while Redis is down and processes everything exactly once after it is back", async () => {
    const started = new Map<string, number>();
    const finished = new Map<string, number>();
    const statuses: number[] = [];
    let outage: "before" | "down" | "after" = "before";
    const statusesDuringOutage: number[] = [];

    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      // A short lease so that a claim applied just as Redis went away frees up quickly.
      idempotency: {
        store: new RedisIdempotencyStore({ client, keyPrefix: PREFIX, operationTimeoutMs: 300 }),
        leaseMs: 1_000,
      },
      logger: { error: () => {}, warn: () => {} },
    }).on("payment.success", async (event) => {
      const id = String(event.data.qris_history_id);
      started.set(id, (started.get(id) ?? 0) + 1);
      await sleep(2);
      finished.set(id, (finished.get(id) ?? 0) + 1);
    });

    const ids = Array.from({ length: EVENTS }, (_, i) => `outage-${i}`);
    const pending = [...ids];
    const deadline = Date.now() + 20_000;
    let gate: Promise<void> = Promise.resolve();

    async function provider(): Promise<void> {
      while (pending.length > 0 && Date.now() < deadline) {
        await gate;
        const id = pending.shift();
        if (id === undefined) break;
        const response = await receiver.handle(
          webhookRequest({ url: `/q?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) }),
        );
        statuses.push(response.status);
        if (outage === "down") statusesDuringOutage.push(response.status);
        if (response.status !== 200) {
          expect([409, 503]).toContain(response.status);
          pending.push(id); // the provider retries later
          await sleep(20);
        }
      }
    }

    const outageDone = (async () => {
      while (finished.size < EVENTS / 3) await sleep(2);
      // Hold new deliveries while Redis stops, so plenty of events are still to come once it is down.
      let open: () => void = () => {};
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      await redis.stop();
      outage = "down";
      open();
      while (statusesDuringOutage.filter((status) => status === 503).length < 20) await sleep(10);
      await redis.restart();
      outage = "after";
    })();
    await Promise.all([...Array.from({ length: 10 }, provider), outageDone]);

    // Deliveries during the outage were refused with 503 (each was retried, and each handler started once).
    expect(statusesDuringOutage.filter((status) => status === 503).length).toBeGreaterThanOrEqual(20);
    // Everything was processed, once, and every handler that started also finished.
    expect(pending).toEqual([]);
    for (const id of ids) {
      expect(started.get(id), id).toBe(1);
      expect(finished.get(id), id).toBe(1);
    }
    // Nothing in Redis is marked completed without its handler having finished.
    const keys = await client.keys(`${PREFIX}*`);
    for (const key of keys) {
      if ((await client.get(key)) !== "done") continue;
      const id = key
        .slice(key.indexOf("{") + 1, key.lastIndexOf("}"))
        .split(":")
        .at(-1) as string;
      expect(finished.get(id), id).toBe(1);
    }
    expect(keys.length).toBeGreaterThan(0);
  }, 30_000);
});
