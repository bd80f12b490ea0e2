// The inbox contract, run against both engines on real servers: one job per idempotency key, the worker applying
// each event once through the receiver's idempotency store, retries, dead letters with every try's error, replay,
// graceful stop, and 503 when the queue is away.
import {
  createWebhookReceiver,
  type InboxMessage,
  MemoryIdempotencyStore,
  tokenVerifier,
} from "@kirimbayar/core/webhooks";
import { describe, expect, it } from "vitest";
import { startInboxWorker } from "../src/worker.js";
import { ENGINES, type EngineUnderTest, useEngine } from "./engines.js";
import { paidEvent, qrisDelivery, waitUntil } from "./support/deliveries.js";

const TOKEN = "inbox-engine-token";
const quiet = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const delivery = (body: string, token = TOKEN) => qrisDelivery(body, token);
/** Waits until `check` holds, at most `timeoutMs`. */
const eventually = (check: () => boolean | Promise<boolean>, timeoutMs = 20_000) => waitUntil(check, { timeoutMs });

/** The web side (inbox mode) and the worker side (handlers, a shared store) of one shop. */
function shop(
  inbox: Awaited<ReturnType<EngineUnderTest["inbox"]>>,
  behaviour: { fail?: (id: string) => boolean; slowMs?: number } = {},
) {
  const store = new MemoryIdempotencyStore();
  const applied: string[] = [];
  const started: string[] = [];
  const origins = new Set<string>();
  const web = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    inbox,
    logger: quiet,
  });
  const worker = createWebhookReceiver({
    source: "qris",
    insecureNoVerification: true,
    idempotency: { store },
    logger: quiet,
  }).on("payment.success", async (event, ctx) => {
    const id = String(event.data.qris_history_id);
    started.push(id);
    if (behaviour.slowMs) await sleep(behaviour.slowMs);
    if (behaviour.fail?.(id)) throw new Error(`handler failed for ${id}`);
    applied.push(id);
    origins.add(ctx.origin);
  });
  return { web, worker, applied, started, origins, store };
}

describe.each(ENGINES)("inbox on %s", (_, start) => {
  const engine = useEngine(start);

  it("keeps one job per idempotency key while it waits", async () => {
    const inbox = await engine.inbox();
    const { web } = shop(inbox);
    expect((await web.handle(delivery(paidEvent("one")))).status).toBe(200);
    expect((await web.handle(delivery(paidEvent("one")))).status).toBe(200);
    expect((await web.handle(delivery(paidEvent("two")))).status).toBe(200);
    expect((await inbox.stats()).waiting).toBe(2);
  });

  it("acknowledges, then a worker applies each event once (ctx.origin inbox), duplicates included", async () => {
    const inbox = await engine.inbox();
    const { web, worker, applied, origins } = shop(inbox);
    for (const id of ["a", "b", "c", "a", "b"]) expect((await web.handle(delivery(paidEvent(id)))).status).toBe(200);
    const running = await startInboxWorker({
      inbox,
      receivers: { qris: worker },
      retry: { baseDelayMs: 100 },
      logger: quiet,
    });
    try {
      await eventually(() => applied.length === 3);
      // A redelivery after processing adds nothing that runs twice.
      expect((await web.handle(delivery(paidEvent("a")))).status).toBe(200);
      await sleep(500);
      expect(applied.sort()).toEqual(["a", "b", "c"]);
      expect([...origins]).toEqual(["inbox"]);
      await eventually(async () => (await inbox.stats()).waiting === 0 && (await inbox.stats()).active === 0);
    } finally {
      await running.stop();
    }
  });

  it("retries a failing event until it succeeds, applying it once", async () => {
    const inbox = await engine.inbox();
    let failures = 2;
    const { web, worker, applied } = shop(inbox, { fail: () => failures-- > 0 });
    await web.handle(delivery(paidEvent("retried")));
    const running = await startInboxWorker({
      inbox,
      receivers: { qris: worker },
      retry: { baseDelayMs: 100, maxDelayMs: 200 },
      logger: quiet,
    });
    try {
      await eventually(() => applied.length === 1);
      expect(applied).toEqual(["retried"]);
      expect(failures).toBe(-1);
    } finally {
      await running.stop();
    }
  });

  it("waits the delay the worker's retry policy chose between tries, not the engine's own backoff", async () => {
    const inbox = await engine.inbox();
    let failures = 5;
    const tried: number[] = [];
    const { web, worker, applied } = shop(inbox, {
      fail: () => {
        tried.push(Date.now());
        return failures-- > 0;
      },
    });
    await web.handle(delivery(paidEvent("paced")));
    const running = await startInboxWorker({
      inbox,
      receivers: { qris: worker },
      retry: { baseDelayMs: 300, maxDelayMs: 300 }, // 240–360 ms with the jitter
      logger: quiet,
    });
    try {
      // Five retries 300 ms apart: about 2 s. pg-boss's own backoff (1, 2, 4, 8, 16 s) would need over 30 s.
      await eventually(() => applied.length === 1, 12_000);
      const gaps = tried.slice(1).map((at, i) => at - (tried[i] as number));
      expect(gaps).toHaveLength(5);
      for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(200);
      expect(Math.max(...gaps)).toBeLessThan(2_000);
    } finally {
      await running.stop();
    }
  });

  it("keeps an event that failed for its whole retry period as a dead letter with every try's error; replay applies it once", async () => {
    const inbox = await engine.inbox();
    let broken = true;
    const { web, worker, applied } = shop(inbox, { fail: () => broken });
    await web.handle(delivery(paidEvent("dead-1")));
    const running = await startInboxWorker({
      inbox,
      receivers: { qris: worker },
      retry: { baseDelayMs: 100, maxDelayMs: 200, periodMs: 1_500 },
      logger: quiet,
    });
    try {
      await eventually(async () => (await inbox.listDeadLetters()).length === 1);
      const [letter] = await inbox.listDeadLetters();
      expect(letter?.message.key).toBe("qris:payment.success:dead-1");
      expect(letter?.attempts.length).toBeGreaterThanOrEqual(2);
      expect(letter?.attempts.every((attempt) => attempt.error === "handler failed for dead-1")).toBe(true);
      expect(letter?.attempts.map((attempt) => attempt.attempt)).toEqual(letter?.attempts.map((_, i) => i + 1));
      expect(await inbox.getDeadLetter(letter?.id as string)).toEqual(letter);
      expect((await inbox.stats()).deadLetters).toBe(1);
      expect(applied).toEqual([]);
      // The operator fixes the cause and replays.
      broken = false;
      expect(await inbox.replayDeadLetter(letter?.id as string)).toBe(true);
      await eventually(() => applied.length === 1);
      expect(await inbox.listDeadLetters()).toEqual([]);
      expect(await inbox.replayDeadLetter(letter?.id as string)).toBe(false);
      expect(await inbox.getDeadLetter("no-such-id")).toBeUndefined();
    } finally {
      await running.stop();
    }
  });

  it("replays every dead letter, and a replay of an event applied meanwhile is not applied again", async () => {
    const inbox = await engine.inbox();
    let broken = true;
    const { web, worker, applied, store } = shop(inbox, { fail: () => broken });
    for (const id of ["r1", "r2", "r3"]) await web.handle(delivery(paidEvent(id)));
    const running = await startInboxWorker({
      inbox,
      receivers: { qris: worker },
      retry: { baseDelayMs: 100, maxDelayMs: 100, periodMs: 600 },
      logger: quiet,
    });
    try {
      await eventually(async () => (await inbox.listDeadLetters()).length === 3);
      // r2 reached the shop another way meanwhile (reconciliation): its record is in the shared store.
      const claimed = await store.claim("qris:payment.success:r2", "reconciler", 60_000);
      expect(claimed.state).toBe("claimed");
      await store.complete("qris:payment.success:r2", "reconciler", 60_000);
      broken = false;
      expect(await inbox.replayAllDeadLetters()).toBe(3);
      await eventually(() => applied.length === 2);
      await sleep(500);
      expect(applied.sort()).toEqual(["r1", "r3"]);
    } finally {
      await running.stop();
    }
  });

  it("makes an event that fails its schema a dead letter at once", async () => {
    const inbox = await engine.inbox();
    const { worker, applied } = shop(inbox);
    const bad: InboxMessage = {
      key: "qris:bad",
      source: "qris",
      body: '{"event":"payment.success","data":"nope"}',
      receivedAt: Date.now(),
    };
    await inbox.enqueue(bad);
    const running = await startInboxWorker({ inbox, receivers: { qris: worker }, logger: quiet });
    try {
      await eventually(async () => (await inbox.listDeadLetters()).length === 1);
      const [letter] = await inbox.listDeadLetters();
      expect(letter?.attempts).toHaveLength(1);
      expect(letter?.attempts[0]?.error).toMatch(/Invalid qris webhook body/);
      expect(applied).toEqual([]);
    } finally {
      await running.stop();
    }
  });

  it("stop() lets the events in flight finish", async () => {
    const inbox = await engine.inbox();
    const { web, worker, applied, started } = shop(inbox, { slowMs: 400 });
    await web.handle(delivery(paidEvent("slow")));
    const running = await startInboxWorker({ inbox, receivers: { qris: worker }, logger: quiet });
    // In flight means its handler is running: a job the queue marked active but the worker has not started yet is
    // handed back by stop(), as it should be (worker-shutdown.test.ts), and would make this test race.
    await eventually(async () => started.length === 1);
    expect((await inbox.stats()).active).toBe(1);
    await running.stop();
    expect(applied).toEqual(["slow"]);
    expect((await inbox.stats()).active).toBe(0);
  });

  it("answers 503 and acknowledges nothing while the queue is away", async () => {
    const inbox = await engine.inbox();
    const store = new MemoryIdempotencyStore();
    const web = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      inbox,
      idempotency: { store, operationTimeoutMs: 1_000 },
      logger: quiet,
    });
    const outage = engine.outage();
    await outage.stop();
    try {
      expect((await web.handle(delivery(paidEvent("during-outage")))).status).toBe(503);
    } finally {
      await outage.start();
    }
    await eventually(async () => (await web.handle(delivery(paidEvent("after-outage")))).status === 200, 30_000);
  });
});
