import { z } from "zod";
import { toHex, utf8Bytes } from "../crypto/encoding.js";
import type { CryptoProvider } from "../crypto/types.js";
import { flatQrisEventName, flatQrisToEnvelope, isFlatQrisBody } from "./qris-flat.js";
import {
  type OrderStatusWebhook,
  orderStatusWebhookSchema,
  type PaymentCallback,
  paymentCallbackSchema,
  type QrisPaymentExpiredEvent,
  type QrisPaymentSuccessEvent,
  type QrisUnknownEvent,
  type QrisWebhookEvent,
  qrisPaymentExpiredEventSchema,
  qrisPaymentSuccessEventSchema,
  qrisUnknownEventSchema,
} from "./schemas.js";
import type { WebhookSource } from "./verifiers/types.js";

/** Handler event names per source, each with the type its handlers receive. */
export interface WebhookEventMap {
  qris: { "payment.success": QrisPaymentSuccessEvent; "payment.expired": QrisPaymentExpiredEvent };
  payment: { "payment.callback": PaymentCallback };
  orders: { "order.status": OrderStatusWebhook };
}

/** Every event a receiver of source `S` can deliver. */
export type WebhookEventOf<S extends WebhookSource> = S extends "qris"
  ? QrisWebhookEvent
  : S extends "payment"
    ? PaymentCallback
    : OrderStatusWebhook;

/** Names accepted by `receiver.on` for source `S`; QR events are an open set. */
export type WebhookEventName<S extends WebhookSource> =
  | keyof WebhookEventMap[S]
  | (S extends "qris" ? string & {} : never);

/** The event type a handler registered under `E` receives. */
export type WebhookEventFor<S extends WebhookSource, E> = E extends keyof WebhookEventMap[S]
  ? WebhookEventMap[S][E]
  : QrisUnknownEvent;

/** What the receiver needs to know about one source. */
export interface SourceDefinition {
  readonly methods: readonly string[];
  /** Picks the schema for a JSON value (by the envelope's `event` for QR events). */
  schemaFor(value: unknown): z.ZodType;
  /** Handler event name of a parsed event. */
  eventName(event: unknown): string;
  /** Default idempotency key, or `undefined` to fall back to the SHA-256 of the raw body. */
  defaultKey(event: unknown): string | undefined;
}

// Parts come from the sender: a part holding `:` or `%` is percent-encoded so that `a:b` + `c` can never collide
// with `a` + `b:c` (most ids hold neither, and skip the encoding).
function keyPart(part: unknown): string {
  const text = String(part);
  return text.includes(":") || text.includes("%") ? encodeURIComponent(text) : text;
}

function qrisSchemaFor(name: unknown): z.ZodType {
  if (name === "payment.success") return qrisPaymentSuccessEventSchema;
  if (name === "payment.expired") return qrisPaymentExpiredEventSchema;
  return qrisUnknownEventSchema;
}

const toEnvelope = (value: unknown) => flatQrisToEnvelope(value as Record<string, unknown>);
const flatQrisSchemas: Record<string, z.ZodType> = {
  "payment.success": z.preprocess(toEnvelope, qrisPaymentSuccessEventSchema),
  "payment.expired": z.preprocess(toEnvelope, qrisPaymentExpiredEventSchema),
};
const flatQrisUnknownSchema = z.preprocess(toEnvelope, qrisUnknownEventSchema);

const qris: SourceDefinition = {
  methods: ["POST"],
  schemaFor(value) {
    // The flat body (FIELD-NOTES) is read as the envelope it stands for, so both shapes share events and keys.
    if (isFlatQrisBody(value)) return flatQrisSchemas[flatQrisEventName(value)] ?? flatQrisUnknownSchema;
    return qrisSchemaFor((value as { event?: unknown } | null)?.event);
  },
  eventName: (event) => (event as QrisWebhookEvent).event,
  defaultKey(event) {
    const { event: name, data } = event as QrisWebhookEvent;
    const id = (data as { qris_history_id?: unknown } | undefined)?.qris_history_id;
    return id === undefined ? undefined : `qris:${keyPart(name)}:${keyPart(id)}`;
  },
};

const payment: SourceDefinition = {
  methods: ["POST"],
  schemaFor: () => paymentCallbackSchema,
  eventName: () => "payment.callback",
  defaultKey(event) {
    const { payment_id: id, status } = event as PaymentCallback;
    if (id === undefined) return undefined;
    // The gateway's states are upper case (PAID, CANCELED); a callback spelling one otherwise is the same state, and
    // must share the key the reconciler uses for it.
    if (status === undefined) return `payment:${keyPart(id)}`;
    return `payment:${keyPart(id)}:${keyPart(String(status).toUpperCase().replace("CANCELLED", "CANCELED"))}`;
  },
};

const orders: SourceDefinition = {
  // The spec's handler advice says POST, its sample uses PUT: both are accepted by default.
  methods: ["POST", "PUT"],
  schemaFor: () => orderStatusWebhookSchema,
  eventName: () => "order.status",
  defaultKey(event) {
    const { order_no, cnote, status } = event as OrderStatusWebhook;
    return `orders:${keyPart(order_no)}:${keyPart(cnote)}:${keyPart(status)}`;
  },
};

/** Source definitions by name. */
export const SOURCES: Readonly<Record<WebhookSource, SourceDefinition>> = { qris, payment, orders };

/** Fallback key: the source and the SHA-256 of the exact body. */
export async function bodyHashKey(source: WebhookSource, crypto: CryptoProvider, rawBody: Uint8Array): Promise<string> {
  return `${source}:sha256:${toHex(await crypto.sha256(rawBody))}`;
}

/** Keys built from sender data could be as long as the body; longer ones are replaced by {@link hashedKey}. */
export const MAX_KEY_LENGTH = 200;

/** A short stand-in for an over-long key: the SHA-256 of the key. */
export async function hashedKey(key: string, crypto: CryptoProvider): Promise<string> {
  return `sha256:${toHex(await crypto.sha256(utf8Bytes(key)))}`;
}
