// Builders shared by the webhook tests: requests in the adapter contract's shape and signed payloads.
import { createHmac } from "node:crypto";
import type { WebhookHttpRequest, WebhookHttpResponse } from "../../src/webhooks/contract.js";

export const JSON_HEADERS = { "content-type": "application/json" } as const;

/** A POST request with a JSON content type; every part overridable. */
export function webhookRequest(overrides: Partial<WebhookHttpRequest> = {}): WebhookHttpRequest {
  return { method: "POST", url: "/webhooks", headers: { ...JSON_HEADERS }, rawBody: "{}", ...overrides };
}

export function hmacHex(key: string, body: string | Uint8Array): string {
  return createHmac("sha256", key).update(body).digest("hex");
}

export function hmacBase64(key: string, body: string | Uint8Array): string {
  return createHmac("sha256", key).update(body).digest("base64");
}

/** Parsed JSON body of a receiver response. */
export function bodyOf(response: WebhookHttpResponse): { success: boolean; message: string } {
  return JSON.parse(response.body) as { success: boolean; message: string };
}

export function qrisSuccess(data: Record<string, unknown> = {}, envelope: Record<string, unknown> = {}) {
  return {
    event: "payment.success",
    timestamp: "2026-03-01T03:00:00Z",
    data: {
      qris_history_id: "8f14e45f-ceea-467f-a2b9-6b1a7c1e2d3f",
      qris_id: "0c6b1a2e-7a7e-4f7e-9d59-1f1f0e5c4b3a",
      amount: 100_001,
      original_amount: 100_000,
      status: "paid",
      paid_at: "2026-03-01T02:59:58Z",
      payment_method: "QRIS",
      payment_provider: "DANA",
      created_at: "2026-03-01T02:50:00Z",
      ...data,
    },
    ...envelope,
  };
}

export function qrisExpired(data: Record<string, unknown> = {}) {
  return {
    event: "payment.expired",
    timestamp: "2026-03-01T03:15:00Z",
    data: {
      qris_history_id: "a87ff679-a2f3-471d-8e2c-9a3f1b7a1c2d",
      qris_id: "0c6b1a2e-7a7e-4f7e-9d59-1f1f0e5c4b3a",
      amount: 50_003,
      status: "expired",
      created_at: "2026-03-01T03:00:00Z",
      expired_at: "2026-03-01T03:15:00Z",
      ...data,
    },
  };
}

export function paymentCallback(fields: Record<string, unknown> = {}) {
  return { payment_id: "KPAY-1234/KM/2026", order_id: "ORD-77", status: "PAID", amount: 150_000, ...fields };
}

export function orderStatus(fields: Record<string, unknown> = {}) {
  return { order_no: "ORD-2026-0001", cnote: "JNE0123456789", status: "Dikirim", ...fields };
}

/** A delivered event as the table tests record it. */
export type DeliveredEvent = Record<string, unknown> & { data?: Record<string, unknown> };
