// Stopping an inbox worker in a rolling deploy (issue 37), on both engines: the events it fetched but had not started
// go back at once; in a graceful shutdown, the ones still running after the grace period have their claims released
// and go back too, so the worker that stays applies them within a second, once, instead of after a hold or a lease.
import { createGracefulShutdown } from "@kirimbayar/core/shutdown";
import { createWebhookReceiver, MemoryIdempotencyStore, tokenVerifier } from "@kirimbayar/core/webhooks";
import { describe, expect, it } from "vitest";
import { startInboxWorker } from "../src/worker.js";
import { ENGINES, useEngine } from "./engines.js";
import { paidEvent, qrisDelivery, waitUntil } from "./support/deliveries.js";

const TOKEN = "inbox-shutdown-token";
const quiet = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const delivery = (id: string) => qrisDelivery(paidEvent(id), TOKEN);
/** Waits until `check` holds, at most `timeoutMs`. */
const eventually = (check: () => boolean | Promise<boolean>, timeoutMs = 20_000) =>
  waitUntil(check, { timeoutMs, everyMs: 25 });

describe.each(ENGINES)("stopping an inbox worker on %s", (_, start) => {
  const engine = useEngine(start);

  it("hands the events still running back at once after the grace period, and the other worker applies them once", async () => {
    const inbox = await engine.inbox();
    const store = new MemoryIdempotencyStore();
    const web = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      inbox,
    });
    const applied: { id: string; by: string }[] = [];
    // Two instances of one app on one store: each tracks its claims through its own shutdown.
    const instance = (name: string, slowMs: number) => {
      const shutdown = createGracefulShutdown({ graceMs: 300, logger: quiet });
      const receiver = createWebhookReceiver({
        source: "qris",
        insecureNoVerification: true,
        idempotency: { store: shutdown.track(store) },
        logger: quiet,
      }).on("payment.success", async (event) => {
        // A slow call that honours the shutdown's signal, as handlers should.
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, slowMs);
          shutdown.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(shutdown.signal.reason);
          });
        });
        applied.push({ id: String(event.data.qris_history_id), by: name });
      });
      return { shutdown, receiver };
    };
    const leaving = instance("leaving", 60_000);
    // Queued first: the pg-boss worker runs what one fetch took before it fetches again.
    for (const id of ["e1", "e2", "e3", "e4", "e5", "e6"]) expect((await web.handle(delivery(id))).status).toBe(200);
    const worker = await startInboxWorker({
      inbox,
      receivers: { qris: leaving.receiver },
      concurrency: 4,
      logger: quiet,
    });
    await eventually(() => leaving.shutdown.held === 4);

    const report = await leaving.shutdown.run({ stop: () => worker.stop(), abort: () => worker.abort() });
    // The handlers watch the shutdown's signal: they stop and fail, and so let go of their claims themselves.
    expect(report).toMatchObject({ heldAtStop: 4, heldAtGraceEnd: 4, released: 0, releaseFailed: 0, failedSteps: [] });
    // Nothing of the leaving instance is in progress in the store, and nothing ran there.
    for (const id of ["e1", "e2", "e3", "e4"]) {
      expect(store.inspect(`qris:payment.success:${id}`)?.state).not.toBe("in_progress");
    }
    expect(applied).toEqual([]);

    const staying = instance("staying", 10);
    const startedAt = Date.now();
    const other = await startInboxWorker({ inbox, receivers: { qris: staying.receiver }, logger: quiet });
    try {
      await eventually(() => applied.length === 6, 10_000);
      const tookMs = Date.now() - startedAt;
      expect(applied.map(({ id }) => id).sort()).toEqual(["e1", "e2", "e3", "e4", "e5", "e6"]);
      expect(new Set(applied.map(({ by }) => by))).toEqual(new Set(["staying"]));
      // Back in the queue, due now: not after the leaving worker's hold (2 s here, minutes by default) ran out.
      expect(tookMs).toBeLessThan(1_900);
      await sleep(300);
      expect(applied).toHaveLength(6);
    } finally {
      await other.stop();
    }
  });

  it("stop() hands back, at its time limit, the events still running, without any shutdown", async () => {
    const inbox = await engine.inbox();
    const web = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      inbox,
    });
    let started = 0;
    const receiver = createWebhookReceiver({
      source: "qris",
      insecureNoVerification: true,
      logger: quiet,
    }).on("payment.success", async () => {
      started += 1;
      await sleep(60_000);
    });
    const worker = await startInboxWorker({ inbox, receivers: { qris: receiver }, concurrency: 1, logger: quiet });
    await web.handle(delivery("slow"));
    await eventually(() => started === 1);
    const stopping = Date.now();
    await worker.stop({ timeoutMs: 200 });
    expect(Date.now() - stopping).toBeLessThan(3_000);
    await eventually(async () => (await inbox.stats()).waiting === 1 && (await inbox.stats()).active === 0, 5_000);
  });

  it("refuses a bad stop timeout", async () => {
    const inbox = await engine.inbox();
    const receiver = createWebhookReceiver({ source: "qris", insecureNoVerification: true, logger: quiet });
    const worker = await startInboxWorker({ inbox, receivers: { qris: receiver }, logger: quiet });
    await expect(worker.stop({ timeoutMs: -1 })).rejects.toThrow(/timeoutMs must be a non-negative number/);
    await worker.stop();
  });
});
