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
} from "./types.js";
