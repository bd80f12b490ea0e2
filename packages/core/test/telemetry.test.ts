// OpenTelemetry through the real SDK (in-memory span exporter, a metric reader collected on demand): a receiver's
// delivery spans and counters by outcome, duplicates, handler duration, and the reconciler's results.
import { metrics, trace } from "@opentelemetry/api";
import { AggregationTemporality, MeterProvider, MetricReader, type ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { beforeEach, describe, expect, it } from "vitest";
import { inboxStage, processInboxMessage } from "../src/index.js";
import { createReconciler } from "../src/reconcile/reconciler.js";
import { webhookTelemetry } from "../src/telemetry.js";
import { createWebhookReceiver, tokenVerifier, type WebhookTelemetry } from "../src/webhooks.js";
import { qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const TOKEN = "otel-token";
const quiet = { warn: () => {}, error: () => {} };
let spans: InMemorySpanExporter;
let reader: CollectingReader;
let telemetry: WebhookTelemetry;

beforeEach(() => {
  spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  telemetry = webhookTelemetry({
    tracer: tracerProvider.getTracer("kirimbayar"),
    meter: meterProvider.getMeter("kirimbayar"),
  });
});

/** Data points of one metric, as `{ attributes, value }`. */
async function points(name: string) {
  const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics };
  const metric = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((m) => m.descriptor.name === name);
  return (metric?.dataPoints ?? []).map((point) => ({ attributes: point.attributes, value: point.value }));
}

const deliver = (id: string, token = TOKEN) =>
  webhookRequest({ url: `/h?token=${token}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });

describe("receiver telemetry", () => {
  it("spans each delivery and counts deliveries by outcome and status, duplicates, and handler time", async () => {
    let fail = true;
    const qris = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      telemetry,
      logger: quiet,
    }).on("payment.success", async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (fail) throw new Error("db down");
    });
    expect((await qris.handle(deliver("t-1"))).status).toBe(500);
    fail = false;
    expect((await qris.handle(deliver("t-1"))).status).toBe(200);
    expect((await qris.handle(deliver("t-1"))).status).toBe(200);
    expect((await qris.handle(deliver("t-2", "forged"))).status).toBe(401);

    const finished = spans.getFinishedSpans();
    expect(finished.map((span) => span.name)).toEqual(Array(4).fill("kirimbayar.webhook.delivery"));
    expect(finished.map((span) => span.attributes["kirimbayar.outcome"])).toEqual([
      "failed",
      "processed",
      "duplicate",
      "refused",
    ]);
    expect(finished.map((span) => span.attributes["http.response.status_code"])).toEqual([500, 200, 200, 401]);
    expect(finished[0]?.status.code).toBe(2); // ERROR
    expect(finished[1]?.status.code).toBe(1); // OK
    expect(finished.every((span) => span.attributes["kirimbayar.source"] === "qris")).toBe(true);
    // No secret in any span.
    expect(JSON.stringify(finished.map((span) => span.attributes))).not.toContain(TOKEN);

    const deliveries = await points("kirimbayar.webhook.deliveries");
    const count = (outcome: string) => deliveries.find((p) => p.attributes["kirimbayar.outcome"] === outcome)?.value;
    expect([count("failed"), count("processed"), count("duplicate"), count("refused")]).toEqual([1, 1, 1, 1]);
    expect((await points("kirimbayar.webhook.duplicates"))[0]?.value).toBe(1);
    const durations = await points("kirimbayar.webhook.handler.duration");
    expect(durations.map((p) => p.attributes["kirimbayar.handler.failed"]).sort()).toEqual([false, true]);
    for (const point of durations)
      expect((point.value as { count: number; min: number }).min).toBeGreaterThanOrEqual(4);
  });

  it("counts queued deliveries in inbox mode and marks events applied by a worker or the reconciler with their origin", async () => {
    const qris = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      inbox: { inboxStage, enqueue: () => "queued" },
      telemetry,
      logger: quiet,
    }).on("payment.success", () => {});
    expect((await qris.handle(deliver("q-1"))).status).toBe(200);
    await processInboxMessage(qris, {
      key: "qris:payment.success:q-1",
      source: "qris",
      body: JSON.stringify(qrisSuccess({ qris_history_id: "q-1" })),
      receivedAt: 1,
    });
    const finished = spans.getFinishedSpans();
    expect(
      finished.map((span) => [span.attributes["kirimbayar.origin"], span.attributes["kirimbayar.outcome"]]),
    ).toEqual([
      ["webhook", "queued"],
      ["inbox", "processed"],
    ]);
  });

  it("does no telemetry work without telemetry (and the global no-op API is accepted too)", async () => {
    const noop = { tracer: trace.getTracer("kirimbayar"), meter: metrics.getMeter("kirimbayar") };
    const qris = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      telemetry: webhookTelemetry(noop),
      logger: quiet,
    }).on("payment.success", () => {});
    expect((await qris.handle(deliver("n-1"))).status).toBe(200);
    expect(spans.getFinishedSpans()).toEqual([]);
    expect(webhookTelemetry({}).forSource("qris")).toBeUndefined();
  });

  it("refuses a bare tracer and meter, naming webhookTelemetry, when the receiver is built", () => {
    const bare = { tracer: telemetry.tracer, meter: telemetry.meter } as unknown as WebhookTelemetry;
    expect(() =>
      createWebhookReceiver({
        source: "qris",
        verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
        telemetry: bare,
      }),
    ).toThrow(/webhookTelemetry\(\{ tracer, meter \}\) of "@kirimbayar\/core\/telemetry"/);
  });
});

describe("reconciler telemetry", () => {
  it("spans each run and counts results by source and outcome", async () => {
    const qris = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      logger: quiet,
    }).on("payment.success", () => {});
    const statuses: Record<string, string> = { a: "paid", b: "unpaid", c: "paid" };
    const reconciler = createReconciler({
      receivers: { qris },
      clients: {
        qris: {
          getQrisPaymentStatus: async (id: string) => ({ data: { payment_status: statuses[id], amount: 1_000 } }),
        },
      },
      minIntervalPerIdMs: 0,
      telemetry,
    });
    await reconciler.reconcile(["a", "b", "c"].map((history_id) => ({ source: "qris" as const, history_id })));
    const [run] = spans.getFinishedSpans();
    expect(run?.name).toBe("kirimbayar.reconcile.run");
    expect(run?.attributes).toMatchObject({
      "kirimbayar.references": 3,
      "kirimbayar.applied": 2,
      "kirimbayar.failed": 0,
    });
    const results = await points("kirimbayar.reconcile.results");
    expect(Object.fromEntries(results.map((p) => [p.attributes["kirimbayar.outcome"], p.value]))).toEqual({
      applied: 2,
      pending: 1,
    });
  });
});

describe("client telemetry", () => {
  it("spans each call with its operation, status and attempts, records its duration, and never the URL or key", async () => {
    const { QrisClient } = await import("../src/qris/index.js");
    const API_KEY = "SENTINEL-API-KEY-91be";
    let calls = 0;
    const fetch = async (input: RequestInfo | URL) => {
      calls += 1;
      const url = String(input);
      if (url.includes("missing"))
        return new Response(JSON.stringify({ status: "error", message: "not found" }), { status: 404 });
      if (calls === 1) return new Response("busy", { status: 503 });
      return new Response(
        JSON.stringify({ success: true, data: { history_id: "h-1", payment_status: "paid", amount: 1_000 } }),
        { status: 200, headers: { "content-type": "application/json" } },
      );
    };
    const client = new QrisClient({
      apiKey: API_KEY,
      baseUrl: "https://qris.example",
      fetch,
      telemetry,
      random: () => 0,
      sleep: async () => {},
    });
    await client.getQrisPaymentStatus("h-1");
    await expect(client.getQrisPaymentStatus("missing")).rejects.toThrow();
    const finished = spans.getFinishedSpans();
    expect(finished.map((span) => span.name)).toEqual(["kirimbayar.client.request", "kirimbayar.client.request"]);
    expect(finished[0]?.attributes).toMatchObject({
      "kirimbayar.operation": "getQrisPaymentStatus",
      "http.request.method": "GET",
      "kirimbayar.attempts": 2,
    });
    expect(finished[0]?.status.code).toBe(1);
    expect(finished[1]?.attributes).toMatchObject({ "http.response.status_code": 404 });
    expect(finished[1]?.status.code).toBe(2);
    const everything = JSON.stringify([finished.map((s) => s.attributes), await points("kirimbayar.client.duration")]);
    expect(everything).not.toContain(API_KEY);
    expect(everything).not.toContain("qris.example");
    const durations = await points("kirimbayar.client.duration");
    expect(durations.map((p) => p.attributes["kirimbayar.outcome"]).sort()).toEqual([expect.any(String), "ok"]);
  });
});
