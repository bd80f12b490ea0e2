import { type Clock, ManualClock, RealClock, TimerScope } from "../clock.js";
import { createFixtureContext } from "../fixtures/context.js";
import type { OrderStatus } from "../fixtures/orders.js";
import type { PaymentRecord } from "../fixtures/payment.js";
import { QRIS_DEFAULT_EXPIRY_MS, type QrisWebhookShape } from "../fixtures/qris.js";
import type { CallbackAuthMode } from "../webhook-request.js";
import { ABORTED, fakeApp, NETWORK_FAILURE, type RecordedRequest } from "./app.js";
import { FaultQueue, type FaultSpec } from "./faults.js";
import { createIdSource, type FakeIdMode } from "./ids.js";
import { inProcessRequest } from "./in-process-request.js";
import { RateLimiter, type RateLimitOptions } from "./rate-limit.js";
import { type ListenOptions, listen, type RunningServer } from "./server.js";
import { type ApiKeysOption, type FakeService, resolveApiKeys } from "./services.js";
import { type CreateOrderInput, type FakeOrder, OrderStore } from "./state/orders.js";
import { type FakePayment, PaymentStore } from "./state/payments.js";
import { type FakeQrCode, type FakeQrisConfig, QrisStore } from "./state/qris.js";
import { type DeliveryAttempt, WebhookDispatcher } from "./webhooks.js";
import type { FakeDeps, World } from "./world.js";

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
  /**
   * Seed of generated codes, amounts and names: a QR code's unique code (so its `final_amount`), the wallet a QR
   * payment came from, addresses and phone numbers. Default `1`. Ids (virtual-account numbers included) follow it
   * only with `ids: "seeded"`.
   */
  seed?: string | number;
  /**
   * How ids are made (`history_id`, `payment_id`, `va_number`, `order_no`, `cnote`, delivery ids).
   * `"unique"` (default): never the same twice, within a process, across `reset()`, across fakes and across test
   * runs (time-ordered from the wall clock, whatever the fake's clock says, with random digits), so records an app's
   * database and idempotency store kept from an earlier test never make a new payment look like a duplicate.
   * `"seeded"`: drawn from `seed`, the same for every fake with that seed and again after `reset()`, for snapshot
   * tests; an app that keeps records between tests then sees the same ids again.
   */
  ids?: FakeIdMode;
  /** Webhook delivery. */
  webhooks?: {
    /** Where QR events go (the dashboard setting). Also `provider.qris.setWebhookUrl(url)`. */
    qrisUrl?: string;
    /** Where order-status events go before any `PUT /order/api/v1/webhook`. */
    ordersUrl?: string;
    /**
     * Transport of deliveries, e.g. `(request) => receiver.fetch(request)` to stay in-process, or your app as a
     * `fetch` (`expressFetch(app)` from `@kirimbayar/testing/express`; `/fastify`, `/hono`, `/nestjs`). Also
     * `provider.webhooks.setFetch(fetch)`. Default: the global `fetch`. The Requests it gets carry no abort signal;
     * an attempt still ends as a timeout after `timeoutMs`.
     */
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
  /**
   * Keep every API request in {@link FakeProvider.requests}. Default `true`. The log grows with every call and is
   * only emptied by `reset()`: pass `false` for load tests and long-running fakes (a reconciler polling for hours),
   * where it would hold memory and slow the host's garbage collection more and more.
   */
  recordRequests?: boolean;
  /** Lifetime of a QR code. Default 15 minutes. */
  qrisExpiryMs?: number;
  /** Lifetime of a payment created without `expiry_duration`, in seconds. Default 86 400. */
  paymentExpirySeconds?: number;
  /**
   * Serve the unauthenticated control API and the simulator page under `/__fake` (pay, expire, cancel, orders, clock,
   * failing deliveries, state), for driving a standalone fake over HTTP or by hand. Default `false`;
   * `kirimbayar-fake serve` turns it on. Bind such a server to loopback only.
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
  /** Every API request answered, in order (no headers, keys redacted); empty with `recordRequests: false`. */
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
    /**
     * The next `count` delivery attempts (first tries and retries) fail without reaching the app, as a dropped
     * connection would; each is retried on the usual schedule. `failNext(0)` disarms.
     */
    failNext(count?: number): void;
    /**
     * Sends later attempts (retries of earlier events too) through `fetch` instead of the one given at creation
     * (`webhooks.fetch`); `undefined` for the global `fetch`. For an app that exists only after the fake's URL was
     * needed at its boot: a NestJS app's `nestFetch(app)` after `app.init()`. Kept by `reset()`.
     */
    setFetch(fetch: ((request: Request) => Promise<Response>) | undefined): void;
    /** Attempts still to fail (see {@link FakeProvider.webhooks.failNext}). */
    readonly pendingFailures: number;
  };
  /** Arms a fault for the next matching request(s). */
  failNext(fault: FaultSpec): void;
  /** Disarms every fault. */
  clearFaults(): void;
  /** Sets the real latency added to every API response. */
  setLatency(ms: number): void;
  /** Serves the same fake over HTTP. */
  listen(options?: ListenOptions): Promise<RunningServer>;
  /**
   * Forgets everything that happened, so one fake can serve a whole test suite (`afterEach(() => fake.reset())`):
   * payments, QR codes, orders, uploaded QR configurations, deliveries and their pending retries, recorded requests,
   * rate-limit counters, armed faults, latency set with `setLatency` (back to `latencyMs`), held, duplicated and
   * failing deliveries; the seeded generator starts over. It keeps the configuration: API keys, webhook URLs (given
   * at creation, set with `setWebhookUrl` or registered by the app with `PUT /order/api/v1/webhook`), the QR webhook
   * shape, the delivery transport (`webhooks.fetch`, `setFetch`) and every other option. Ids stay unique: a reset
   * never hands out an id again, unless `ids: "seeded"` (then the ids start over with the seed).
   * A clock the fake made (`"manual"`, a `Date`, `"real"`) goes back to its start; a `Clock` you passed keeps its
   * time, and only the fake's timers on it are cancelled. Read `deliveries` and `requests` again after a reset.
   * Cheaper than a new fake; a running `listen()` server keeps serving the reset fake.
   */
  reset(): void;
}

function webhookShape(shape: QrisWebhookShape | undefined): QrisWebhookShape {
  if (shape === undefined || shape === "envelope" || shape === "flat") return shape ?? "envelope";
  throw new TypeError(`qrisShape must be "envelope" or "flat", got ${JSON.stringify(shape)}`);
}

/** The clock, the view of it the fake sets its timers through, and how `reset()` rewinds it. */
function resolveClock(option: FakeProviderOptions["clock"]): { clock: Clock; timers: Clock; rewind(): void } {
  const owned =
    option === undefined || option === "manual"
      ? new ManualClock()
      : option === "real"
        ? new RealClock()
        : option instanceof Date
          ? new ManualClock(option)
          : undefined;
  if (owned) return { clock: owned, timers: owned, rewind: () => owned.reset() };
  const clock = option as Clock;
  const scope = new TimerScope(clock);
  return { clock, timers: scope, rewind: () => scope.clearAll() };
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
  const { clock, timers, rewind } = resolveClock(options.clock);
  const seed = options.seed ?? 1;
  const webhookOptions = options.webhooks ?? {};
  const shape = webhookShape(webhookOptions.qrisShape);
  const ctx = createFixtureContext({ seed, now: () => timers.now() });
  const ids = createIdSource(options.ids, ctx.random);
  const dispatcher = new WebhookDispatcher(timers, ids, webhookOptions);
  const world: World = {
    ctx,
    clock: timers,
    dispatcher,
    payments: new PaymentStore(ids, timers, dispatcher, options.paymentExpirySeconds ?? 86_400),
    qris: new QrisStore(
      ctx,
      ids,
      timers,
      dispatcher,
      options.qrisExpiryMs ?? QRIS_DEFAULT_EXPIRY_MS,
      webhookOptions.qrisUrl,
    ),
    orders: new OrderStore(ctx, ids, timers, dispatcher, webhookOptions.ordersMethod ?? "POST"),
  };
  world.orders.webhookUrl = webhookOptions.ordersUrl;
  world.qris.webhookShape = shape;
  const deps: FakeDeps = {
    world,
    keys: resolveApiKeys(options.apiKeys),
    rateLimiter: options.rateLimit === false ? undefined : new RateLimiter(timers, options.rateLimit ?? {}),
    faults: new FaultQueue(),
    latencyMs: options.latencyMs ?? 0,
    recordRequests: options.recordRequests ?? true,
    requests: [],
  };
  const app = fakeApp(options.controlApi ?? false);
  const handle = async (request: Request): Promise<Response> => app.fetch(request, deps);

  const inProcessFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = inProcessRequest(input, init);
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

  // Clears in place what happened; the objects, the configuration (keys, webhook URLs and shape, the transport) and
  // the app (shared by every fake of the process, router compiled once) stay, which is what makes a reset cheaper
  // than a new fake. The URLs stay even when the app set them (`setWebhookUrl`, its order-webhook registration at
  // boot): a test suite sets them once, and a reset that forgot them would drop the next test's webhooks silently.
  const reset = () => {
    rewind();
    ctx.random.reset();
    ids.reset();
    dispatcher.clear();
    world.payments.clear();
    world.qris.clear();
    world.orders.clear();
    deps.rateLimiter?.clear();
    deps.faults.clear();
    deps.latencyMs = options.latencyMs ?? 0;
    deps.requests = [];
  };
  return new Fake(deps, clock, inProcessFetch, handle, reset);
}

const BASE_URL = "https://fake.kirimbayar.test";

// Classes rather than an object literal of closures and getters: a test suite builds a fake per test, and the
// literal cost several times what these cost. The top-level methods stay own functions, so `afterEach(fake.reset)`
// and a destructured `failNext` keep working.
class Fake implements FakeProvider {
  readonly baseUrl = BASE_URL;
  readonly apiKeys: Readonly<Record<FakeService, readonly string[]>>;
  readonly payments: PaymentsHandle;
  readonly qris: QrisHandle;
  readonly orders: OrdersHandle;
  readonly webhooks: WebhooksHandle;
  readonly failNext: (fault: FaultSpec) => void;
  readonly clearFaults: () => void;
  readonly setLatency: (ms: number) => void;
  readonly listen: (options?: ListenOptions) => Promise<RunningServer>;
  readonly #deps: FakeDeps;

  constructor(
    deps: FakeDeps,
    readonly clock: Clock,
    readonly fetch: FakeProvider["fetch"],
    handle: (request: Request) => Promise<Response>,
    readonly reset: () => void,
  ) {
    this.#deps = deps;
    this.apiKeys = deps.keys;
    this.payments = new PaymentsHandle(deps);
    this.qris = new QrisHandle(deps);
    this.orders = new OrdersHandle(deps);
    this.webhooks = new WebhooksHandle(deps);
    this.failNext = (fault) => deps.faults.add(fault);
    this.clearFaults = () => deps.faults.clear();
    this.setLatency = (ms) => {
      deps.latencyMs = ms;
    };
    this.listen = (listenOptions) => listen(handle, listenOptions);
  }

  get deliveries(): readonly DeliveryAttempt[] {
    return this.#deps.world.dispatcher.attempts;
  }

  get requests(): readonly RecordedRequest[] {
    return this.#deps.requests;
  }
}

class PaymentsHandle implements Readonly<FakeProvider["payments"]> {
  readonly #deps: FakeDeps;
  constructor(deps: FakeDeps) {
    this.#deps = deps;
  }
  pay(paymentId: string): Promise<PaymentRecord> {
    return this.#deps.world.payments.pay(paymentId);
  }
  expire(paymentId: string): Promise<PaymentRecord> {
    return this.#deps.world.payments.expire(paymentId);
  }
  get(paymentId: string): FakePayment | undefined {
    return this.#deps.world.payments.get(paymentId);
  }
  list(): FakePayment[] {
    return this.#deps.world.payments.list();
  }
}

class QrisHandle implements Readonly<FakeProvider["qris"]> {
  readonly #deps: FakeDeps;
  constructor(deps: FakeDeps) {
    this.#deps = deps;
  }
  pay(historyId: string, options?: { paymentProvider?: string }): Promise<FakeQrCode> {
    return this.#deps.world.qris.pay(historyId, options);
  }
  expire(historyId: string): Promise<FakeQrCode> {
    return this.#deps.world.qris.expire(historyId);
  }
  get(historyId: string): FakeQrCode | undefined {
    return this.#deps.world.qris.get(historyId);
  }
  list(): FakeQrCode[] {
    return this.#deps.world.qris.list();
  }
  addConfig(name: string): FakeQrisConfig {
    return this.#deps.world.qris.addConfig(name);
  }
  setWebhookUrl(url: string | undefined): void {
    this.#deps.world.qris.webhookUrl = url;
  }
  get webhookUrl(): string | undefined {
    return this.#deps.world.qris.webhookUrl;
  }
  setWebhookShape(shape: QrisWebhookShape): void {
    this.#deps.world.qris.webhookShape = webhookShape(shape);
  }
  get webhookShape(): QrisWebhookShape {
    return this.#deps.world.qris.webhookShape;
  }
}

class OrdersHandle implements Readonly<FakeProvider["orders"]> {
  readonly #deps: FakeDeps;
  constructor(deps: FakeDeps) {
    this.#deps = deps;
  }
  create(input?: CreateOrderInput): FakeOrder {
    return this.#deps.world.orders.create(input);
  }
  setStatus(orderNo: string, status: OrderStatus): Promise<FakeOrder> {
    return this.#deps.world.orders.setStatus(orderNo, status);
  }
  get(orderNo: string): FakeOrder | undefined {
    return this.#deps.world.orders.get(orderNo);
  }
  list(): FakeOrder[] {
    return this.#deps.world.orders.list();
  }
  setWebhookUrl(url: string | undefined): void {
    this.#deps.world.orders.webhookUrl = url;
  }
  get webhookUrl(): string | undefined {
    return this.#deps.world.orders.webhookUrl;
  }
}

class WebhooksHandle implements Readonly<FakeProvider["webhooks"]> {
  readonly #deps: FakeDeps;
  constructor(deps: FakeDeps) {
    this.#deps = deps;
  }
  settled(): Promise<void> {
    return this.#deps.world.dispatcher.settled();
  }
  duplicateNext(copies?: number): void {
    this.#deps.world.dispatcher.duplicateNext(copies);
  }
  hold(): void {
    this.#deps.world.dispatcher.hold();
  }
  release(order?: "reverse" | "fifo"): Promise<void> {
    return this.#deps.world.dispatcher.release(order);
  }
  get heldCount(): number {
    return this.#deps.world.dispatcher.heldCount;
  }
  failNext(count?: number): void {
    this.#deps.world.dispatcher.failNext(count);
  }
  get pendingFailures(): number {
    return this.#deps.world.dispatcher.pendingFailures;
  }
  setFetch(fetch: ((request: Request) => Promise<Response>) | undefined): void {
    this.#deps.world.dispatcher.fetch = fetch;
  }
}
