import type { Clock, TimerId } from "../../clock.js";
import type { FixtureContext } from "../../fixtures/context.js";
import {
  QRIS_PAYMENT_PROVIDERS,
  type QrisGenerated,
  type QrisGenerateRequest,
  type QrisPaymentExpiredEvent,
  type QrisPaymentStatusData,
  type QrisPaymentSuccessEvent,
  type QrisStatus,
  type QrisUploaded,
  type QrisWebhookShape,
  toFlatQrisWebhook,
} from "../../fixtures/qris.js";
import { buildQrisString } from "../../qris-string.js";
import { isoUtc, wibDateTime } from "../../time.js";
import { FakeProviderError } from "../errors.js";
import type { IdSource } from "../ids.js";
import { qrisImageDataUrl } from "../qris-image.js";
import type { WebhookDispatcher } from "../webhooks.js";

/** A QR configuration (an uploaded static QRIS) codes are generated from. */
export interface FakeQrisConfig {
  qrisId: number;
  uuid: string;
  name: string;
  merchantName: string;
  nmid: string;
}

/** A generated QR code and its state. */
export interface FakeQrCode {
  historyId: string;
  config: FakeQrisConfig;
  status: QrisStatus;
  originalAmount: number;
  /** What the customer is charged: the original amount plus the unique code. */
  finalAmount: number;
  qrisString: string;
  createdAt: number;
  expiresAt: number;
  paidAt?: number;
  paymentProvider?: string;
}

interface Entry extends FakeQrCode {
  expiryTimer: TimerId;
  /** The PNG data URL, made on first use. */
  image?: Promise<string>;
}

/** A copy of an entry without its timer and image (explicit fields: a rest pattern costs several times more). */
function publicCode(entry: Entry): FakeQrCode {
  const code: FakeQrCode = {
    historyId: entry.historyId,
    config: entry.config,
    status: entry.status,
    originalAmount: entry.originalAmount,
    finalAmount: entry.finalAmount,
    qrisString: entry.qrisString,
    createdAt: entry.createdAt,
    expiresAt: entry.expiresAt,
  };
  if (entry.paidAt !== undefined) code.paidAt = entry.paidAt;
  if (entry.paymentProvider !== undefined) code.paymentProvider = entry.paymentProvider;
  return code;
}

/** QR codes: unpaid until paid or expired; `payment.success` / `payment.expired` to the registered URL. */
export class QrisStore {
  webhookUrl: string | undefined;
  /** Which body QR events are sent in (`provider.qris.setWebhookShape`). */
  webhookShape: QrisWebhookShape = "envelope";
  #configs = new Map<number, FakeQrisConfig>();
  #codes = new Map<string, Entry>();
  #ctx: FixtureContext;
  #ids: IdSource;
  #clock: Clock;
  #dispatcher: WebhookDispatcher;
  #expiryMs: number;

  constructor(
    ctx: FixtureContext,
    ids: IdSource,
    clock: Clock,
    dispatcher: WebhookDispatcher,
    expiryMs: number,
    webhookUrl?: string,
  ) {
    this.#ctx = ctx;
    this.#ids = ids;
    this.#clock = clock;
    this.#dispatcher = dispatcher;
    this.#expiryMs = expiryMs;
    this.webhookUrl = webhookUrl;
    this.addConfig("Kasir Utama");
  }

  /** Forgets every code and configuration, then registers the default one again, as a new store does. */
  clear(): void {
    this.#codes.clear();
    this.#configs.clear();
    this.addConfig("Kasir Utama");
  }

  /** Registers a QR configuration (what upload does); the first one has id 1. */
  addConfig(name: string): FakeQrisConfig {
    const config: FakeQrisConfig = {
      qrisId: this.#configs.size + 1,
      uuid: this.#ctx.random.uuid(),
      name,
      merchantName: "TOKO KIRIMBAYAR",
      nmid: `ID10${this.#ctx.random.digits(11)}`,
    };
    this.#configs.set(config.qrisId, config);
    return config;
  }

  /** A configuration by id. */
  config(qrisId: number): FakeQrisConfig | undefined {
    return this.#configs.get(qrisId);
  }

  /** Upload response data for a configuration. */
  uploaded(config: FakeQrisConfig): QrisUploaded {
    return {
      qris_id: config.qrisId,
      qris_uuid: config.uuid,
      name: config.name,
      merchant_name: config.merchantName,
      nmid: config.nmid,
    };
  }

  /** Generates an unpaid code from a validated request; `output_type: "image"` adds a scannable PNG of the string. */
  async generate(request: QrisGenerateRequest, config: FakeQrisConfig): Promise<QrisGenerated> {
    const now = this.#clock.now();
    const historyId = this.#ids.historyId();
    const finalAmount =
      request.unique_amount === false ? request.amount : request.amount + this.#uniqueCode(request.amount);
    const qrisString = buildQrisString({
      amount: finalAmount,
      merchantName: config.merchantName,
      merchantCity: "JAKARTA PUSAT",
      postalCode: "10110",
      nmid: config.nmid,
      reference: this.#ids.qrReference(historyId),
    });
    const entry: Entry = {
      historyId,
      config,
      status: "unpaid",
      originalAmount: request.amount,
      finalAmount,
      qrisString,
      createdAt: now,
      expiresAt: now + this.#expiryMs,
      expiryTimer: this.#clock.setTimer(() => this.#expire(historyId), this.#expiryMs),
    };
    this.#codes.set(historyId, entry);
    return {
      history_id: historyId,
      qris_id: config.qrisId,
      qris_string: qrisString,
      ...(request.output_type === "image" ? { qris_image: await this.#imageOf(entry) } : {}),
      original_amount: entry.originalAmount,
      final_amount: finalAmount,
      unique_code: finalAmount - entry.originalAmount,
      payment_status: "unpaid",
      expiry_time: wibDateTime(entry.expiresAt),
      created_at: isoUtc(now),
    };
  }

  /** A PNG data URL of the code's QRIS string (scannable; made once per code), or undefined for an unknown id. */
  image(historyId: string): Promise<string> | undefined {
    const entry = this.#codes.get(historyId);
    return entry && this.#imageOf(entry);
  }

  #imageOf(entry: Entry): Promise<string> {
    entry.image ??= qrisImageDataUrl(entry.qrisString);
    return entry.image;
  }

  /** Status data of a code, or undefined. */
  status(historyId: string): QrisPaymentStatusData | undefined {
    const entry = this.#codes.get(historyId);
    if (!entry) return undefined;
    return {
      history_id: entry.historyId,
      qris_id: entry.config.qrisId,
      payment_status: entry.status,
      original_amount: entry.originalAmount,
      final_amount: entry.finalAmount,
      created_at: isoUtc(entry.createdAt),
      expiry_time: wibDateTime(entry.expiresAt),
      paid_at: entry.paidAt === undefined ? null : isoUtc(entry.paidAt),
    };
  }

  /** A code by history id. */
  get(historyId: string): FakeQrCode | undefined {
    const entry = this.#codes.get(historyId);
    return entry && publicCode(entry);
  }

  /** Every code, oldest first. */
  list(): FakeQrCode[] {
    return [...this.#codes.keys()].flatMap((id) => this.get(id) ?? []);
  }

  /** The customer scans and pays: unpaid → paid, then `payment.success` (first attempt awaited). */
  async pay(historyId: string, options: { paymentProvider?: string } = {}): Promise<FakeQrCode> {
    const entry = this.#unpaid(historyId, "pay");
    entry.status = "paid";
    entry.paidAt = this.#clock.now();
    entry.paymentProvider = options.paymentProvider ?? this.#ctx.random.pick(QRIS_PAYMENT_PROVIDERS);
    this.#clock.clearTimer(entry.expiryTimer);
    const paidAt = isoUtc(entry.paidAt);
    const event: QrisPaymentSuccessEvent = {
      event: "payment.success",
      timestamp: paidAt,
      data: {
        qris_history_id: entry.historyId,
        qris_id: entry.config.uuid,
        amount: entry.finalAmount,
        original_amount: entry.originalAmount,
        status: "paid",
        paid_at: paidAt,
        payment_method: "QRIS",
        payment_provider: entry.paymentProvider,
        created_at: isoUtc(entry.createdAt),
      },
    };
    await this.#send(event);
    return this.get(historyId) as FakeQrCode;
  }

  /** Expires an unpaid code now, as if its lifetime had run out. */
  async expire(historyId: string): Promise<FakeQrCode> {
    const entry = this.#unpaid(historyId, "expire");
    this.#clock.clearTimer(entry.expiryTimer);
    await this.#expire(historyId);
    return this.get(historyId) as FakeQrCode;
  }

  #uniqueCode(amount: number): number {
    // A code no other unpaid QR of the same amount uses, so payments stay distinguishable.
    let taken: Set<number> | undefined;
    for (const code of this.#codes.values()) {
      if (code.status === "unpaid" && code.originalAmount === amount) {
        taken ??= new Set();
        taken.add(code.finalAmount - code.originalAmount);
      }
    }
    for (let tries = 0; tries < 2000; tries++) {
      const candidate = this.#ctx.random.int(1, 999);
      if (!taken?.has(candidate)) return candidate;
    }
    throw new FakeProviderError("invalid_state", `no unique code left for amount ${amount}`);
  }

  #unpaid(historyId: string, action: string): Entry {
    const entry = this.#codes.get(historyId);
    if (!entry) throw new FakeProviderError("not_found", `no QR code ${historyId}`);
    if (entry.status !== "unpaid") {
      throw new FakeProviderError("invalid_state", `cannot ${action} QR code ${historyId}: it is ${entry.status}`);
    }
    return entry;
  }

  async #expire(historyId: string): Promise<void> {
    const entry = this.#codes.get(historyId);
    if (entry?.status !== "unpaid") return;
    entry.status = "expired";
    const at = this.#clock.now();
    const event: QrisPaymentExpiredEvent = {
      event: "payment.expired",
      timestamp: isoUtc(at),
      data: {
        qris_history_id: entry.historyId,
        qris_id: entry.config.uuid,
        amount: entry.finalAmount,
        status: "expired",
        created_at: isoUtc(entry.createdAt),
        expired_at: isoUtc(at),
      },
    };
    await this.#send(event);
  }

  async #send(event: QrisPaymentSuccessEvent | QrisPaymentExpiredEvent): Promise<void> {
    if (!this.webhookUrl) return;
    const entry = this.#codes.get(String(event.data.qris_history_id));
    const body =
      this.webhookShape === "flat"
        ? toFlatQrisWebhook(event, {
            transactionId: this.#ids.transactionId(event.data.qris_history_id),
            ...(entry === undefined ? {} : { expiresAt: entry.expiresAt }),
          })
        : event;
    await this.#dispatcher.dispatch({ source: "qris", event: event.event, url: this.webhookUrl, body });
  }
}
