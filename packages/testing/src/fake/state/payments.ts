import type { Clock, TimerId } from "../../clock.js";
import {
  type PaymentCreateRequest,
  type PaymentRecord,
  type PaymentStatus,
  paymentCallbackFromRecord,
} from "../../fixtures/payment.js";
import { buildQrisString } from "../../qris-string.js";
import { isoUtc } from "../../time.js";
import { FakeProviderError } from "../errors.js";
import type { IdSource } from "../ids.js";
import type { WebhookDispatcher } from "../webhooks.js";

/** A payment the fake holds, with what it needs to call back. */
export interface FakePayment {
  readonly record: PaymentRecord;
  readonly request: PaymentCreateRequest;
  readonly callbackUrl: string | undefined;
  /** Why it was cancelled, once it is. */
  cancelReason?: string;
}

interface Entry extends FakePayment {
  record: PaymentRecord;
  callbackApiKey: string | undefined;
  expiryTimer: TimerId;
}

/** QRIS payments of the gateway have a short fixed lifetime (FIELD-NOTES). */
const GATEWAY_QRIS_EXPIRY_SECONDS = 15 * 60;

/** Payment-gateway transactions: PENDING until paid, cancelled or expired; callbacks on PAID and EXPIRED. */
// Shared by every store with no payment yet, never written: most tests of a QR flow create none, and a fake per test
// pays for each Map it makes.
const NO_PAYMENTS: ReadonlyMap<string, Entry> = new Map();

export class PaymentStore {
  #entries: ReadonlyMap<string, Entry> = NO_PAYMENTS;
  #ids: IdSource;
  #clock: Clock;
  #dispatcher: WebhookDispatcher;
  #defaultExpirySeconds: number;

  constructor(ids: IdSource, clock: Clock, dispatcher: WebhookDispatcher, defaultExpirySeconds: number) {
    this.#ids = ids;
    this.#clock = clock;
    this.#dispatcher = dispatcher;
    this.#defaultExpirySeconds = defaultExpirySeconds;
  }

  /** Forgets every payment (`provider.reset()`; the clock's timers are the provider's to clear). */
  clear(): void {
    this.#entries = NO_PAYMENTS;
  }

  /** Creates a PENDING payment from a validated request. */
  create(request: PaymentCreateRequest): PaymentRecord {
    const now = this.#clock.now();
    // Ids carry "/" on purpose: clients must URL-encode them in paths (FIELD-NOTES).
    const paymentId = `KPAY-${this.#ids.paymentNumber()}/KM/${new Date(now).getUTCFullYear()}`;
    const isQris = request.payment_type === "qris";
    const expirySeconds = isQris
      ? GATEWAY_QRIS_EXPIRY_SECONDS
      : (request.expiry_duration ?? this.#defaultExpirySeconds);
    const record: PaymentRecord = {
      payment_id: paymentId,
      order_id: request.order_id,
      payment_type: request.payment_type,
      bank_code: isQris ? "" : (request.channel_code ?? ""),
      amount: request.amount,
      status: "PENDING",
      va_number: isQris ? "" : `8808${this.#ids.vaDigits()}`,
      payment_url: `https://pay.kirimbayar.test/${encodeURIComponent(paymentId)}`,
      qr_string: isQris
        ? buildQrisString({
            amount: request.amount,
            merchantName: "TOKO KIRIMBAYAR",
            merchantCity: "JAKARTA PUSAT",
            postalCode: "10110",
            nmid: "ID1026000000001",
            reference: paymentId.slice(0, 25),
          })
        : "",
      created_at: isoUtc(now),
      expired_at: isoUtc(now + expirySeconds * 1000),
      paid_at: null,
    };
    const expiryTimer = this.#clock.setTimer(() => this.#expire(paymentId), expirySeconds * 1000);
    const entries = this.#entries === NO_PAYMENTS ? new Map<string, Entry>() : (this.#entries as Map<string, Entry>);
    this.#entries = entries;
    entries.set(paymentId, {
      record,
      request,
      callbackUrl: request.callback_url,
      callbackApiKey: request.callback_api_key,
      expiryTimer,
    });
    return { ...record };
  }

  /** A payment by id, or undefined. */
  get(paymentId: string): FakePayment | undefined {
    const entry = this.#entries.get(paymentId);
    return (
      entry && {
        record: { ...entry.record },
        request: entry.request,
        callbackUrl: entry.callbackUrl,
        ...(entry.cancelReason === undefined ? {} : { cancelReason: entry.cancelReason }),
      }
    );
  }

  /** Every payment, oldest first. */
  list(): FakePayment[] {
    return [...this.#entries.keys()].flatMap((id) => this.get(id) ?? []);
  }

  /** The customer pays: PENDING → PAID, then the callback (awaited: its first attempt). */
  async pay(paymentId: string): Promise<PaymentRecord> {
    const entry = this.#pending(paymentId, "pay");
    entry.record.status = "PAID";
    entry.record.paid_at = isoUtc(this.#clock.now());
    this.#clock.clearTimer(entry.expiryTimer);
    await this.#callback(entry);
    return { ...entry.record };
  }

  /** Cancels a PENDING payment (what `POST /cancel` does). */
  cancel(paymentId: string, reason: string): PaymentRecord {
    const entry = this.#pending(paymentId, "cancel");
    entry.record.status = "CANCELED";
    entry.cancelReason = reason;
    this.#clock.clearTimer(entry.expiryTimer);
    return { ...entry.record };
  }

  /** Expires a PENDING payment now, as if its `expiry_duration` had passed. */
  async expire(paymentId: string): Promise<PaymentRecord> {
    const entry = this.#pending(paymentId, "expire");
    this.#clock.clearTimer(entry.expiryTimer);
    await this.#expire(paymentId);
    return { ...entry.record };
  }

  /** Current status, or undefined for an unknown id. */
  statusOf(paymentId: string): PaymentStatus | undefined {
    return this.#entries.get(paymentId)?.record.status;
  }

  async #expire(paymentId: string): Promise<void> {
    const entry = this.#entries.get(paymentId);
    if (entry?.record.status !== "PENDING") return;
    entry.record.status = "EXPIRED";
    await this.#callback(entry);
  }

  #pending(paymentId: string, action: string): Entry {
    const entry = this.#entries.get(paymentId);
    if (!entry) throw new FakeProviderError("not_found", `no payment ${paymentId}`);
    if (entry.record.status !== "PENDING") {
      throw new FakeProviderError(
        "invalid_state",
        `cannot ${action} payment ${paymentId}: it is ${entry.record.status}, only PENDING payments can change`,
      );
    }
    return entry;
  }

  async #callback(entry: Entry): Promise<void> {
    if (!entry.callbackUrl) return;
    await this.#dispatcher.dispatch({
      source: "payment",
      event: "payment.callback",
      url: entry.callbackUrl,
      body: paymentCallbackFromRecord(entry.record, this.#clock.now()),
      ...(entry.callbackApiKey === undefined ? {} : { callbackApiKey: entry.callbackApiKey }),
    });
  }
}
