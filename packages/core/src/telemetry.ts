// Entry point of `@kirimbayar/core/telemetry`: OpenTelemetry for webhook receivers (`webhookTelemetry`). Its own entry,
// so that a receiver without telemetry bundles none of it; core never imports `@opentelemetry/api` (only its shapes).
export type {
  CounterLike,
  HistogramLike,
  KirimbayarTelemetry,
  MeterLike,
  ObservableGaugeLike,
  ObservableResultLike,
  SpanLike,
  TelemetryAttributes,
  TracerLike,
  WebhookSourceTelemetry,
  WebhookTelemetry,
} from "./telemetry/index.js";
export { webhookTelemetry } from "./telemetry/webhook-telemetry.js";
