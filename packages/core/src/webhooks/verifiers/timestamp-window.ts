import { WebhookConfigurationError } from "../errors.js";
import { parseWebhookTimestamp } from "../time.js";
import { type EventVerifier, VERIFIED, type VerificationResult, verificationFailed } from "./types.js";

/** Options of {@link timestampWindow}. */
export interface TimestampWindowOptions {
  /**
   * Largest accepted distance, both directions, between the envelope's `timestamp` and now. Default 25 minutes:
   * the QR service's last retry comes about 21 minutes after the event.
   */
  toleranceMs?: number;
  /** Clock in epoch ms; defaults to the receiver's clock. */
  clock?: () => number;
}

/**
 * Refuses QR events whose envelope `timestamp` is too far from now (a replay of an old, captured delivery).
 * Off unless you add it; keep the tolerance above the provider's 21-minute retry window.
 *
 * @example
 * createWebhookReceiver({ source: "qris", verify: [tokenVerifier({ ... }), timestampWindow({ toleranceMs: 30 * 60_000 })] });
 */
export function timestampWindow(options: TimestampWindowOptions = {}): EventVerifier {
  const toleranceMs = options.toleranceMs ?? 25 * 60_000;
  if (!Number.isFinite(toleranceMs) || toleranceMs <= 0) {
    throw new WebhookConfigurationError("timestampWindow: toleranceMs must be a positive number of milliseconds");
  }
  return {
    kind: "event",
    name: "timestampWindow",
    sources: ["qris"],
    verify(event, request): VerificationResult {
      const raw = (event as { timestamp?: unknown }).timestamp;
      const time = typeof raw === "string" ? parseWebhookTimestamp(raw) : undefined;
      if (time === undefined) return verificationFailed("the envelope timestamp is missing or not a recognised time");
      const now = options.clock?.() ?? request.now;
      if (Math.abs(now - time.getTime()) > toleranceMs) {
        return verificationFailed(
          `the envelope timestamp is outside the accepted window of ${Math.round(toleranceMs / 1000)} s`,
        );
      }
      return VERIFIED;
    },
  };
}
