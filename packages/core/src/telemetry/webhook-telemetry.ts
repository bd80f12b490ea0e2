import {
  type CounterLike,
  type HistogramLike,
  type KirimbayarTelemetry,
  SPAN_ERROR,
  SPAN_KIND_SERVER,
  SPAN_OK,
  type SpanLike,
  type TracerLike,
  type WebhookSourceTelemetry,
  type WebhookTelemetry,
} from "./types.js";

/**
 * Wraps OpenTelemetry's tracer and meter for webhook receivers: a `kirimbayar.webhook.delivery` span per delivery,
 * deliveries counted by source, outcome and status, duplicates, and the handlers' duration. The result is also what
 * the reconciler, the clients and inbox workers take as `telemetry`, so one object serves them all. Receivers take
 * only this (not the bare tracer and meter), so that an app without telemetry bundles none of this code.
 *
 * @example
 * import { metrics, trace } from "@opentelemetry/api";
 * import { webhookTelemetry } from "@kirimbayar/core/telemetry";
 * const telemetry = webhookTelemetry({ tracer: trace.getTracer("kirimbayar"), meter: metrics.getMeter("kirimbayar") });
 * const qris = createWebhookReceiver({ source: "qris", verify, telemetry });
 */
export function webhookTelemetry(telemetry: KirimbayarTelemetry): WebhookTelemetry {
  const otel: KirimbayarTelemetry = { ...telemetry };
  return {
    ...otel,
    forSource: (source) =>
      otel.tracer === undefined && otel.meter === undefined ? undefined : new SourceTelemetry(source, otel),
  };
}

/** What a delivery came to, as telemetry names it (`kirimbayar.outcome`). */
export type DeliveryOutcome = "processed" | "duplicate" | "queued" | "in_progress" | "refused" | "failed";

/** The outcome a receiver's answer stands for. */
export function outcomeOf(status: number, body: string): DeliveryOutcome {
  if (status === 200) {
    if (body.includes("Duplicate of an event")) return "duplicate";
    return body.includes("Webhook queued") ? "queued" : "processed";
  }
  if (status === 409) return "in_progress";
  return status >= 500 ? "failed" : "refused";
}

/**
 * A receiver's spans and metrics: a `kirimbayar.webhook.delivery` span per delivery (source, status, outcome),
 * `kirimbayar.webhook.deliveries` counted by source, outcome and status, `kirimbayar.webhook.duplicates`, and
 * `kirimbayar.webhook.handler.duration` (ms) by source and event. Built once per receiver.
 */
class SourceTelemetry implements WebhookSourceTelemetry {
  readonly #tracer: TracerLike | undefined;
  readonly #deliveries: CounterLike | undefined;
  readonly #duplicates: CounterLike | undefined;
  readonly #handlerDuration: HistogramLike | undefined;

  constructor(
    readonly source: string,
    telemetry: KirimbayarTelemetry,
  ) {
    this.#tracer = telemetry.tracer;
    const meter = telemetry.meter;
    this.#deliveries = meter?.createCounter("kirimbayar.webhook.deliveries", {
      description: "Webhook deliveries answered, by source, outcome and status",
    });
    this.#duplicates = meter?.createCounter("kirimbayar.webhook.duplicates", {
      description: "Deliveries of events already processed, queued or in progress",
    });
    this.#handlerDuration = meter?.createHistogram("kirimbayar.webhook.handler.duration", {
      description: "Time the handlers of one event took",
      unit: "ms",
    });
  }

  /** Starts the span of one delivery; call the returned function with the answer. */
  delivery(origin: string): (status: number, body: string, error?: unknown) => void {
    const span: SpanLike | undefined = this.#tracer?.startSpan("kirimbayar.webhook.delivery", {
      kind: SPAN_KIND_SERVER,
      attributes: { "kirimbayar.source": this.source, "kirimbayar.origin": origin },
    });
    return (status, body, error) => {
      const outcome = outcomeOf(status, body);
      const attributes = {
        "kirimbayar.source": this.source,
        "kirimbayar.outcome": outcome,
        "http.response.status_code": status,
      };
      this.#deliveries?.add(1, attributes);
      if (outcome === "duplicate" || outcome === "in_progress")
        this.#duplicates?.add(1, { "kirimbayar.source": this.source });
      if (span === undefined) return;
      span.setAttribute("kirimbayar.outcome", outcome);
      span.setAttribute("http.response.status_code", status);
      if (error instanceof Error) span.recordException?.(error);
      span.setStatus(status >= 500 ? { code: SPAN_ERROR, message: outcome } : { code: SPAN_OK });
      span.end();
    };
  }

  /** Records how long the handlers of one event ran. */
  handlerRan(event: string, milliseconds: number, failed: boolean): void {
    this.#handlerDuration?.record(milliseconds, {
      "kirimbayar.source": this.source,
      "kirimbayar.event": event,
      "kirimbayar.handler.failed": failed,
    });
  }
}
