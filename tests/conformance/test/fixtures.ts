import { createHmac } from "node:crypto";
import {
  callbackKeyVerifier,
  type IdempotencyStore,
  MemoryIdempotencyStore,
  tokenVerifier,
} from "@kirimbayar/core/webhooks";
import type { SourceOptions } from "./adapters.js";

/** Secrets of the test apps. Rotation: the QRIS route accepts both tokens. */
export const secrets = {
  qrisToken: "qris-token-2026",
  qrisPreviousToken: "qris-token-2025",
  callbackKey: "callback-key-9f2c",
  ordersToken: "orders-token-51ab",
} as const;

/**
 * Receiver options of the three sources as a shop would write them: a token in the query for QRIS and orders,
 * the callback key HMAC for the payment gateway. One store per source unless one is given (shared Redis tests).
 */
export function sourceOptions(
  store?: () => IdempotencyStore,
  limits: { bodyReadTimeoutMs?: number } = {},
): SourceOptions {
  const idempotency = () => ({ store: store ? store() : new MemoryIdempotencyStore() });
  return {
    qris: {
      verify: [tokenVerifier({ secrets: [secrets.qrisToken, secrets.qrisPreviousToken], in: "query", name: "token" })],
      idempotency: idempotency(),
      ...limits,
    },
    payment: {
      verify: [callbackKeyVerifier({ secrets: [secrets.callbackKey] })],
      idempotency: idempotency(),
      ...limits,
    },
    orders: {
      verify: [tokenVerifier({ secrets: [secrets.ordersToken], in: "query", name: "token" })],
      idempotency: idempotency(),
      ...limits,
    },
  };
}

/** A QRIS `payment.success` body as the spec writes it. */
export function qrisPaid(historyId: string, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    event: "payment.success",
    timestamp: "2026-03-01T08:15:00Z",
    data: {
      qris_history_id: historyId,
      qris_id: "6f1c2a8e-1d7b-4a51-9a3e-0c1f5e2b7d90",
      amount: 100_001,
      original_amount: 100_000,
      status: "paid",
      paid_at: "2026-03-01T08:14:58Z",
      payment_method: "qris",
      payment_provider: "dana",
      created_at: "2026-03-01T08:00:00Z",
      ...overrides,
    },
  });
}

/** A QRIS `payment.expired` body. */
export function qrisExpired(historyId: string): string {
  return JSON.stringify({
    event: "payment.expired",
    timestamp: "2026-03-01T09:00:00Z",
    data: {
      qris_history_id: historyId,
      qris_id: "6f1c2a8e-1d7b-4a51-9a3e-0c1f5e2b7d90",
      amount: 50_000,
      status: "expired",
      created_at: "2026-03-01T08:45:00Z",
      expired_at: "2026-03-01T09:00:00Z",
    },
  });
}

/** A payment gateway callback body (its shape is unpublished; these are the fields seen in practice). */
export function paymentCallback(paymentId: string, status = "PAID"): string {
  return JSON.stringify({ payment_id: paymentId, order_id: `ORD-${paymentId}`, status, amount: 150_000 });
}

/** An order status delivery. */
export function orderStatus(orderNo: string, status: string): string {
  return JSON.stringify({ order_no: orderNo, cnote: `JP${orderNo.replace(/\D/g, "")}`, status });
}

/** The `X-Callback-Api-Key` header value: HMAC-SHA256 of the exact body, keyed with the callback key. */
export function callbackSignature(
  body: string,
  encoding: "hex" | "base64" = "hex",
  key: string = secrets.callbackKey,
): string {
  return createHmac("sha256", key).update(body).digest(encoding);
}

export const json = { "content-type": "application/json" } as const;
