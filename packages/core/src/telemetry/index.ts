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
} from "./types.js";
