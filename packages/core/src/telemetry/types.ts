// The slice of `@opentelemetry/api` kirimbayar uses, as structural types: core imports nothing from it (it stays an
// optional peer, and core runs on every runtime). Pass `trace.getTracer("kirimbayar")` and
// `metrics.getMeter("kirimbayar")`; any object of these shapes works.

/** Attribute values as OpenTelemetry takes them. */
export type TelemetryAttributes = Record<string, string | number | boolean>;

/** An OpenTelemetry span (`Span`). */
export interface SpanLike {
  setAttribute(key: string, value: string | number | boolean): unknown;
  /** `code`: 1 OK, 2 ERROR (OpenTelemetry's `SpanStatusCode`). */
  setStatus(status: { code: number; message?: string }): unknown;
  recordException?(exception: Error | string): unknown;
  end(): void;
}

/** An OpenTelemetry tracer (`trace.getTracer(name)`). */
export interface TracerLike {
  startSpan(name: string, options?: { attributes?: TelemetryAttributes; kind?: number }): SpanLike;
}

/** An OpenTelemetry counter. */
export interface CounterLike {
  add(value: number, attributes?: TelemetryAttributes): void;
}

/** An OpenTelemetry histogram. */
export interface HistogramLike {
  record(value: number, attributes?: TelemetryAttributes): void;
}

/** What an observable gauge's callback gets. */
export interface ObservableResultLike {
  observe(value: number, attributes?: TelemetryAttributes): void;
}

/** An OpenTelemetry observable gauge. */
export interface ObservableGaugeLike {
  addCallback(callback: (result: ObservableResultLike) => void | Promise<void>): void;
  removeCallback?(callback: (result: ObservableResultLike) => void | Promise<void>): void;
}

/** An OpenTelemetry meter (`metrics.getMeter(name)`). */
export interface MeterLike {
  createCounter(name: string, options?: { description?: string; unit?: string }): CounterLike;
  createHistogram(name: string, options?: { description?: string; unit?: string }): HistogramLike;
  createObservableGauge(name: string, options?: { description?: string; unit?: string }): ObservableGaugeLike;
}

/**
 * Where kirimbayar reports spans and metrics: give either or both. With `@opentelemetry/api`:
 * `{ tracer: trace.getTracer("kirimbayar"), meter: metrics.getMeter("kirimbayar") }`.
 */
export interface KirimbayarTelemetry {
  tracer?: TracerLike;
  meter?: MeterLike;
}

/** The spans and metrics of one receiver's deliveries (see {@link WebhookTelemetry}). */
export interface WebhookSourceTelemetry {
  /** Starts the span of one delivery (`origin`: webhook, reconciliation, inbox); call the result with the answer. */
  delivery(origin: string): (status: number, body: string, error?: unknown) => void;
  /** Records how long the handlers of one event ran. */
  handlerRan(event: string, milliseconds: number, failed: boolean): void;
}

/**
 * What a webhook receiver reports to (`createWebhookReceiver({ telemetry })`): OpenTelemetry's tracer and meter
 * wrapped by `webhookTelemetry()` of `@kirimbayar/core/telemetry`, so that a receiver without telemetry bundles no
 * telemetry code. It is a {@link KirimbayarTelemetry} too: pass the same object to the reconciler, the clients and
 * inbox workers.
 *
 * @example
 * const telemetry = webhookTelemetry({ tracer: trace.getTracer("kirimbayar"), meter: metrics.getMeter("kirimbayar") });
 */
export interface WebhookTelemetry extends KirimbayarTelemetry {
  /** The spans and metrics of a receiver of `source`; `undefined` when there is neither a tracer nor a meter. */
  forSource(source: string): WebhookSourceTelemetry | undefined;
}

/** OpenTelemetry's `SpanStatusCode` values. */
export const SPAN_OK = 1;
export const SPAN_ERROR = 2;
/** OpenTelemetry's `SpanKind` values used here. */
export const SPAN_KIND_SERVER = 1;
export const SPAN_KIND_CLIENT = 2;
export const SPAN_KIND_CONSUMER = 4;
