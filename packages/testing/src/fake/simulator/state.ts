// What the simulator page and `GET /__fake/state` show of a fake: everything a person needs to follow a payment, and
// nothing secret. API keys never appear; URLs lose the values of token-like query parameters; a payment's
// `callback_api_key` and the signed headers of deliveries are left out.
import { CONTROL_PREFIX } from "../routes/paths.js";
import { nextOrderStatuses, type PaymentAction, paymentActions, type QrisAction, qrisActions } from "../transitions.js";
import { redactUrl } from "../webhooks.js";
import type { World } from "../world.js";

/** A QR code as the simulator shows it. */
export interface QrCodeView {
  historyId: string;
  status: string;
  originalAmount: number;
  finalAmount: number;
  uniqueCode: number;
  qrisString: string;
  /** Where the PNG of the code is served. */
  imageUrl: string;
  createdAt: string;
  expiresAt: string;
  paidAt: string | null;
  paymentProvider: string | null;
  actions: QrisAction[];
}

/** A payment-gateway transaction as the simulator shows it. */
export interface PaymentView {
  paymentId: string;
  orderId: string;
  paymentType: string;
  bankCode: string;
  vaNumber: string;
  amount: number;
  status: string;
  /** PNG of `qr_string`, for gateway QRIS payments. */
  imageUrl: string | null;
  createdAt: string;
  expiresAt: string;
  paidAt: string | null;
  cancelReason: string | null;
  /** `callback_url` with token-like query values redacted. */
  callbackUrl: string | null;
  actions: PaymentAction[];
}

/** An order as the simulator shows it. */
export interface OrderView {
  orderNo: string;
  waybill: string;
  courier: string;
  status: string;
  receiverName: string;
  destinationCity: string;
  nextStatuses: string[];
}

/** One delivery attempt as the log shows it (no headers, no request body). */
export interface DeliveryView {
  deliveryId: string;
  source: string;
  event: string;
  method: string;
  url: string;
  attempt: number;
  duplicate: boolean;
  at: string;
  status: number | null;
  responseBody: string | null;
  error: string | null;
  acknowledged: boolean;
  injectedFailure: boolean;
  nextAttemptAt: string | null;
  /** Sent and still waiting for the app's answer (or for the attempt's time limit): no verdict yet. */
  inFlight: boolean;
}

/** The whole picture, newest first in every list. */
export interface SimulatorState {
  /** Changes whenever anything but the time does: the page re-renders its lists when it moves. */
  revision: string;
  now: string;
  webhooks: { qrisUrl: string | null; ordersUrl: string | null; pendingFailures: number; held: number };
  qrCodes: QrCodeView[];
  payments: PaymentView[];
  orders: OrderView[];
  /** The newest {@link LOG_LIMIT} attempts (`GET /__fake/deliveries` has them all). */
  deliveries: DeliveryView[];
  /** Attempts in all. */
  deliveryCount: number;
}

/** Attempts the page and the state show: a long session's log stays quick to poll and to draw. */
export const LOG_LIMIT = 200;

const iso = (ms: number): string => new Date(ms).toISOString();

/** A redacted URL as a person reads it: `?token=[redacted]`, not `?token=%5Bredacted%5D`. */
function readable(url: string): string {
  return url.replaceAll("%5Bredacted%5D", "[redacted]");
}

function safeUrl(url: string | undefined): string | null {
  if (url === undefined) return null;
  try {
    return readable(redactUrl(url));
  } catch {
    return "(not a valid URL)";
  }
}

// FNV-1a: a cheap fingerprint of the state, not a security measure.
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

/** A snapshot of `world` for the page and the state endpoint. */
export function simulatorState(world: World): SimulatorState {
  const qrCodes = world.qris
    .list()
    .reverse()
    .map(
      (code): QrCodeView => ({
        historyId: code.historyId,
        status: code.status,
        originalAmount: code.originalAmount,
        finalAmount: code.finalAmount,
        uniqueCode: code.finalAmount - code.originalAmount,
        qrisString: code.qrisString,
        imageUrl: `${CONTROL_PREFIX}/qris/${encodeURIComponent(code.historyId)}/image.png`,
        createdAt: iso(code.createdAt),
        expiresAt: iso(code.expiresAt),
        paidAt: code.paidAt === undefined ? null : iso(code.paidAt),
        paymentProvider: code.paymentProvider ?? null,
        actions: qrisActions(code.status),
      }),
    );
  const payments = world.payments
    .list()
    .reverse()
    .map(
      ({ record, callbackUrl, cancelReason }): PaymentView => ({
        paymentId: record.payment_id,
        orderId: record.order_id,
        paymentType: record.payment_type,
        bankCode: record.bank_code,
        vaNumber: record.va_number,
        amount: record.amount,
        status: record.status,
        imageUrl: record.qr_string
          ? `${CONTROL_PREFIX}/payments/qr.png?payment_id=${encodeURIComponent(record.payment_id)}`
          : null,
        createdAt: record.created_at,
        expiresAt: record.expired_at,
        paidAt: record.paid_at,
        cancelReason: cancelReason ?? null,
        callbackUrl: safeUrl(callbackUrl),
        actions: paymentActions(record.status),
      }),
    );
  const orders = world.orders
    .list()
    .reverse()
    .map(
      (order): OrderView => ({
        orderNo: order.orderNo,
        waybill: order.cnote,
        courier: order.courier,
        status: order.status,
        receiverName: order.shipment.receiverName,
        destinationCity: order.shipment.destinationCity,
        nextStatuses: nextOrderStatuses(order.status),
      }),
    );
  const attempts = world.dispatcher.attempts;
  const deliveries = attempts
    .slice(-LOG_LIMIT)
    .map(
      (attempt): DeliveryView => ({
        deliveryId: attempt.deliveryId,
        source: attempt.source,
        event: attempt.event,
        method: attempt.method,
        url: readable(attempt.url),
        attempt: attempt.attempt,
        duplicate: attempt.duplicate,
        at: attempt.at.toISOString(),
        status: attempt.status ?? null,
        responseBody: attempt.responseBody ?? null,
        error: attempt.error ?? null,
        acknowledged: attempt.acknowledged,
        injectedFailure: attempt.injectedFailure ?? false,
        nextAttemptAt: attempt.nextAttemptAt?.toISOString() ?? null,
        // An attempt is logged as it is sent; its status or its error comes with the outcome.
        inFlight: attempt.status === undefined && attempt.error === undefined,
      }),
    )
    .reverse();
  const webhooks = {
    qrisUrl: safeUrl(world.qris.webhookUrl),
    ordersUrl: safeUrl(world.orders.webhookUrl),
    pendingFailures: world.dispatcher.pendingFailures,
    held: world.dispatcher.heldCount,
  };
  const deliveryCount = attempts.length;
  const revision = fingerprint(JSON.stringify([webhooks, qrCodes, payments, orders, deliveries, deliveryCount]));
  return { revision, now: iso(world.clock.now()), webhooks, qrCodes, payments, orders, deliveries, deliveryCount };
}
