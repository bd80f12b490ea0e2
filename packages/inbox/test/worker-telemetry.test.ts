// The worker's telemetry through the real OpenTelemetry SDK, on an in-memory inbox (the engines' own tests cover
// the queues): a span and a counted verdict per try, dead letters, and the queue gauges.
import { inboxStage } from "@kirimbayar/core";
import { createWebhookReceiver, type InboxMessage } from "@kirimbayar/core/webhooks";
import { AggregationTemporality, MeterProvider, MetricReader, type ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { expect, it } from "vitest";
import type { InboxDelivery, InboxQueue, InboxVerdict } from "../src/types.js";
import { startInboxWorker } from "../src/worker.js";

class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** An inbox in memory: runs each queued message until its verdict is done or dead (retries at once). */
function memoryInbox(messages: InboxMessage[]): InboxQueue & { dead: InboxMessage[] } {
  const dead: InboxMessage[] = [];
  return {
    engine: "memory",
    name: "test-inbox",
    dead,
    inboxStage,
    enqueue: async () => "queued",
    async consume(decide: (delivery: InboxDelivery) => Promise<InboxVerdict>) {
      for (const message of messages) {
        for (let attempt = 1; attempt <= 10; attempt++) {
          const verdict = await decide({ message, attempt, periodStartedAt: message.receivedAt });
          if (verdict.kind === "dead") dead.push(message);
          if (verdict.kind !== "retry") break;
        }
      }
      return { stop: async () => {} };
    },
    listDeadLetters: async () => [],
    getDeadLetter: async () => undefined,
    replayDeadLetter: async () => false,
    replayAllDeadLetters: async () => 0,
    stats: async () => ({ waiting: 3, active: 1, deadLetters: dead.length, oldestWaitingAgeMs: 1_500 }),
    close: async () => {},
  };
}

const message = (id: string): InboxMessage => ({
  key: `qris:payment.success:${id}`,
  source: "qris",
  body: JSON.stringify({
    event: "payment.success",
    timestamp: "2026-03-01T03:00:00Z",
    data: { qris_history_id: id, amount: 1 },
  }),
  receivedAt: Date.now(),
});

it("reports each try, its verdict, dead letters and the queue's depth and age", async () => {
  const spans = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }).getTracer("k");
  const reader = new CollectingReader();
  const meter = new MeterProvider({ readers: [reader] }).getMeter("k");
  let failures = 1;
  const qris = createWebhookReceiver({
    source: "qris",
    insecureNoVerification: true,
    logger: { warn: () => {}, error: () => {} },
  }).on("payment.success", (event) => {
    if (event.data.qris_history_id === "never") throw new Error("broken for good");
    if (failures-- > 0) throw new Error("once");
  });
  const inbox = memoryInbox([message("ok"), message("never")]);
  let fakeNow = Date.now();
  const worker = await startInboxWorker({
    inbox,
    receivers: { qris },
    retry: { baseDelayMs: 1, maxDelayMs: 1, periodMs: 20 },
    // Each decision is 15 ms later: the broken event outlives its 20 ms period on its second failure, however fast
    // the machine runs the (immediate) retries of this in-memory inbox.
    clock: () => {
      fakeNow += 15;
      return fakeNow;
    },
    telemetry: { tracer, meter },
    logger: { warn: () => {}, error: () => {} },
  });
  const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics };
  const metric = (name: string) =>
    resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name)?.dataPoints ?? [];
  const verdicts = Object.fromEntries(
    metric("kirimbayar.inbox.events").map((p) => [p.attributes["kirimbayar.verdict"], p.value]),
  );
  expect(verdicts.done).toBe(1);
  expect(verdicts.dead).toBe(1);
  expect(verdicts.retry).toBeGreaterThanOrEqual(1);
  expect(metric("kirimbayar.inbox.dead_letters")[0]?.value).toBe(1);
  const depth = Object.fromEntries(
    metric("kirimbayar.inbox.depth").map((p) => [p.attributes["kirimbayar.inbox.state"], p.value]),
  );
  expect(depth).toEqual({ waiting: 3, active: 1, dead: 1 });
  expect(metric("kirimbayar.inbox.oldest_age")[0]?.value).toBe(1_500);
  const finished = spans.getFinishedSpans();
  expect(finished.every((span) => span.name === "kirimbayar.inbox.process")).toBe(true);
  expect(finished[0]?.attributes).toMatchObject({
    "kirimbayar.source": "qris",
    "kirimbayar.attempt": 1,
    "kirimbayar.verdict": "retry",
  });
  expect(finished.at(-1)?.attributes["kirimbayar.verdict"]).toBe("dead");
  await worker.stop();
  expect(inbox.dead.map((m) => m.key)).toEqual(["qris:payment.success:never"]);
});
