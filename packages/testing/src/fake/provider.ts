import { type Clock, ManualClock, RealClock } from "../clock.js";
import { createFixtureContext } from "../fixtures/context.js";
import type { OrderStatus } from "../fixtures/orders.js";
import type { PaymentRecord } from "../fixtures/payment.js";
import { QRIS_DEFAULT_EXPIRY_MS, type QrisWebhookShape } from "../fixtures/qris.js";
import type { CallbackAuthMode } from "../webhook-request.js";
import { ABORTED, createFakeApp, NETWORK_FAILURE, type RecordedRequest } from "./app.js";
import { FaultQueue, type FaultSpec } from "./faults.js";
import { RateLimiter, type RateLimitOptions } from "./rate-limit.js";
import { type ListenOptions, listen, type RunningServer } from "./server.js";
import { type ApiKeysOption, type FakeService, resolveApiKeys } from "./services.js";
import { type CreateOrderInput, type FakeOrder, OrderStore } from "./state/orders.js";
import { type FakePayment, PaymentStore } from "./state/payments.js";
import { type FakeQrCode, type FakeQrisConfig, QrisStore } from "./state/qris.js";
import { type DeliveryAttempt, WebhookDispatcher } from "./webhooks.js";
import type { World } from "./world.js";

/** Options of {@link createFakeProvider}. */
export interface FakeProviderOptions {
  /** Accepted keys: one for every service, or per service. Defaults: `DEFAULT_API_KEYS`. */
  apiKeys?: ApiKeysOption;
  /**
   * Time source of expiries, retries and rate-limit windows. `"manual"` (default): a {@link ManualClock} at a fixed
   * instant that moves only with `provider.clock.advance(ms)`; `"real"`: the wall clock (what the CLI uses); a `Date`:
   * a manual clock starting there; or your own {@link Clock}.
   */
  clock?: Clock | "manual" | "real" | Date;
  /** Seed of every generated id, code and amount. Default `1`. */
  seed?: string | number;
  /** Webhook delivery. */
  webhooks?: {
    /** Where QR events go (the dashboard setting). Also `provider.qris.setWebhookUrl(url)`. */
    qrisUrl?: string;
    /** Where order-status events go before any `PUT /order/api/v1/webhook`. */
    ordersUrl?: string;
    /** Transport of deliveries, e.g. `(request) => receiver.fetch(request)` to stay in-process. Default: `fetch`. */
    fetch?: (request: Request) => Promise<Response>;
    /** Delays before each retry. Default `[60_000, 300_000, 900_000]` (1, 5, 15 minutes). */
    retryDelaysMs?: readonly number[];
    /** Real-time limit per attempt. Default 10 000 ms. */
    timeoutMs?: number;
    /** How payment callbacks carry `callback_api_key`: `hmac` (default) or `plain`. */
    callbackAuth?: CallbackAuthMode;
    /** Method of order-status deliveries: `POST` (default) or `PUT` (the sample's). */
    ordersMethod?: "POST" | "PUT";
    /**
     * The body QR events are sent in: `"envelope"` (default, the spec's `{ event, timestamp, data }`) or `"flat"`
     * (the QR service's flat body; see `QrisFlatWebhook`). Also `provider.qris.setWebhookShape(shape)`.
     */
    qrisShape?: QrisWebhookShape;
  };
  /** Rate limit per key, or `false` for none (no headers then). Default 600 requests per minute. */
  rateLimit?: RateLimitOptions | false;
  /** Real milliseconds added to every API response. Default 0. */
  latencyMs?: number;
  /** Lifetime of a QR code. Default 15 minutes. */
  qrisExpiryMs?: number;
  /** Lifetime of a payment created without `expiry_duration`, in seconds. Default 86 400. */
  paymentExpirySeconds?: number;
  /**
   * Serve the unauthenticated control API under `/__fake` (pay, expire, orders, clock, deliveries), for driving a
   * standalone fake over HTTP. Default `false`; `kirimbayar-fake serve` turns it on.
   */
  controlApi?: boolean;
}

/** The fake provider: a `fetch`, a server, and the handles to move its world. */
export interface FakeProvider {
  /** In-process `fetch` to hand to clients: no sockets. Any origin works; use {@link FakeProvider.baseUrl}. */
  readonly fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /** Base URL to use with {@link FakeProvider.fetch}. */
  readonly baseUrl: string;
  readonly clock: Clock;
  /** Accepted keys per service. */
  readonly apiKeys: Readonly<Record<FakeService, readonly string[]>>;
  /** Every webhook attempt, in order. */
  readonly deliveries: readonly DeliveryAttempt[];
  /** Every API request answered, in order (no headers, keys redacted). */
  readonly requests: readonly RecordedRequest[];
  readonly payments: {
    /** The customer pays a PENDING payment; resolves after the callback's first attempt. */
    pay(paymentId: string): Promise<PaymentRecord>;
    /** Expires a PENDING payment now. */
    expire(paymentId: string): Promise<PaymentRecord>;
    get(paymentId: string): FakePayment | undefined;
    list(): FakePayment[];
  };
  readonly qris: {
    /** The customer pays an unpaid code; resolves after the `payment.success` first attempt. */
    pay(historyId: string, options?: { paymentProvider?: string }): Promise<FakeQrCode>;
    /** Expires an unpaid code now (or advance the clock past its expiry). */
    expire(historyId: string): Promise<FakeQrCode>;
    get(historyId: string): FakeQrCode | undefined;
    list(): FakeQrCode[];
    /** Registers a QR configuration as an upload would; returns its `qris_id`. */
    addConfig(name: string): FakeQrisConfig;
    setWebhookUrl(url: string | undefined): void;
    readonly webhookUrl: string | undefined;
    /** Sends later QR events in this body shape. */
    setWebhookShape(shape: QrisWebhookShape): void;
    readonly webhookShape: QrisWebhookShape;
  };
  readonly orders: {
    /** Creates an order with a trackable waybill (status `Diajukan`). */
    create(input?: CreateOrderInput): FakeOrder;
    /** Changes the status, updates tracking and sends the order webhook (first attempt awaited). */
    setStatus(orderNo: string, status: OrderStatus): Promise<FakeOrder>;
    get(orderNo: string): FakeOrder | undefined;
    list(): FakeOrder[];
    setWebhookUrl(url: string | undefined): void;
    readonly webhookUrl: string | undefined;
  };
  readonly webhooks: {
    /** Resolves when no delivery attempt is in flight. */
    settled(): Promise<void>;
    /** Sends the next event `1 + copies` times. */
    duplicateNext(copies?: number): void;
    /** Queues deliveries until {@link FakeProvider.webhooks.release}. */
    hold(): void;
    /** Sends the queued deliveries, newest first by default (out of order). */
    release(order?: "reverse" | "fifo"): Promise<void>;
    readonly heldCount: number;
  };
  /** Arms a fault for the next matching request(s). */
  failNext(fault: FaultSpec): void;
  /** Disarms every fault. */
  clearFaults(): void;
  /** Sets the real latency added to every API response. */
  setLatency(ms: number): void;
  /** Serves the same fake over HTTP. */
  listen(options?: ListenOptions): Promise<RunningServer>;
}

function webhookShape(shape: QrisWebhookShape | undefined): QrisWebhookShape {
  if (shape === undefined || shape === "envelope" || shape === "flat") return shape ?? "envelope";
  throw new TypeError(`qrisShape must be "envelope" or "flat", got ${JSON.stringify(shape)}`);
}

function resolveClock(option: FakeProviderOptions["clock"]): Clock {
  if (option === undefined || option === "manual") return new ManualClock();
  if (option === "real") return new RealClock();
  if (option instanceof Date) return new ManualClock(option);
  return option;
}

/**
 * Creates a stateful fake of every service the SDK calls (payment gateway, QR, shipping current/Pro/Starter, order
 * webhook registration) on one base URL, with webhooks, a clock, fault injection and rate limits.
 *
 * @example
 * const provider = createFakeProvider({ webhooks: { qrisUrl: "http://shop.test/webhooks/qris", fetch: receiver.fetch } });
 * const qris = new QrisClient({ apiKey: provider.apiKeys.qris[0], baseUrl: provider.baseUrl, fetch: provider.fetch });
 * const { data } = await qris.generateQris({ qris_id: 1, amount: 100_000, output_type: "string" });
 * await provider.qris.pay(data.history_id);            // receiver gets payment.success
 * await provider.clock.advance(15 * 60_000);           // other codes expire → payment.expired
 */
export function createFakeProvider(options: FakeProviderOptions = {}): FakeProvider {
  const clock = resolveClock(options.clock);
  const ctx = createFixtureContext({ seed: options.seed ?? 1, now: () => clock.now() });
  const webhookOptions = options.webhooks ?? {};
  const dispatcher = new WebhookDispatcher(clock, {
    ...(webhookOptions.fetch ? { fetch: webhookOptions.fetch } : {}),
    ...(webhookOptions.retryDelaysMs ? { retryDelaysMs: webhookOptions.retryDelaysMs } : {}),
    ...(webhookOptions.timeoutMs === undefined ? {} : { timeoutMs: webhookOptions.timeoutMs }),
    ...(webhookOptions.callbackAuth ? { callbackAuth: webhookOptions.callbackAuth } : {}),
  });
  const world: World = {
    ctx,
    clock,
    dispatcher,
    payments: new PaymentStore(ctx, clock, dispatcher, options.paymentExpirySeconds ?? 86_400),
    qris: new QrisStore(ctx, clock, dispatcher, options.qrisExpiryMs ?? QRIS_DEFAULT_EXPIRY_MS, webhookOptions.qrisUrl),
    orders: new OrderStore(ctx, clock, dispatcher, webhookOptions.ordersMethod ?? "POST"),
  };
  world.orders.webhookUrl = webhookOptions.ordersUrl;
  world.qris.webhookShape = webhookShape(webhookOptions.qrisShape);
  const keys = resolveApiKeys(options.apiKeys);
  const faults = new FaultQueue();
  const requests: RecordedRequest[] = [];
  let latencyMs = options.latencyMs ?? 0;
  const app = createFakeApp({
    world,
    keys,
    rateLimiter: options.rateLimit === false ? undefined : new RateLimiter(clock, options.rateLimit ?? {}),
    faults,
    latencyMs: () => latencyMs,
    requests,
    controlApi: options.controlApi ?? false,
  });
  const handle = async (request: Request): Promise<Response> => app.fetch(request);

  const inProcessFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (request.signal.aborted) throw request.signal.reason;
    const response = await handle(request);
    if (ABORTED.has(response)) throw request.signal.reason;
    if (NETWORK_FAILURE.has(response)) {
      // The shape undici gives a dropped connection, so clients' ConnectionError mapping is exercised for real.
      throw new TypeError("fetch failed", {
        cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }),
      });
    }
    return response;
  };

  return {
    fetch: inProcessFetch,
    baseUrl: "https://fake.kirimbayar.test",
    clock,
    apiKeys: keys,
    deliveries: dispatcher.attempts,
    requests,
    payments: {
      pay: (id) => world.payments.pay(id),
      expire: (id) => world.payments.expire(id),
      get: (id) => world.payments.get(id),
      list: () => world.payments.list(),
    },
    qris: {
      pay: (id, payOptions) => world.qris.pay(id, payOptions),
      expire: (id) => world.qris.expire(id),
      get: (id) => world.qris.get(id),
      list: () => world.qris.list(),
      addConfig: (name) => world.qris.addConfig(name),
      setWebhookUrl: (url) => {
        world.qris.webhookUrl = url;
      },
      get webhookUrl() {
        return world.qris.webhookUrl;
      },
      setWebhookShape: (shape) => {
        world.qris.webhookShape = webhookShape(shape);
      },
      get webhookShape() {
        return world.qris.webhookShape;
      },
    },
    orders: {
      create: (input) => world.orders.create(input),
      setStatus: (orderNo, status) => world.orders.setStatus(orderNo, status),
      get: (orderNo) => world.orders.get(orderNo),
      list: () => world.orders.list(),
      setWebhookUrl: (url) => {
        world.orders.webhookUrl = url;
      },
      get webhookUrl() {
        return world.orders.webhookUrl;
      },
    },
    webhooks: {
      settled: () => dispatcher.settled(),
      duplicateNext: (copies) => dispatcher.duplicateNext(copies),
      hold: () => dispatcher.hold(),
      release: (order) => dispatcher.release(order),
      get heldCount() {
        return dispatcher.heldCount;
      },
    },
    failNext: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    setLatency: (ms) => {
      latencyMs = ms;
    },
    listen: (listenOptions) => listen(handle, listenOptions),
  };
}
