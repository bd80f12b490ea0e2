import type { Clock } from "../clock.js";
import { type CallbackAuthMode, toWebhookRequest } from "../webhook-request.js";

/** Which sender a delivery imitates. */
export type WebhookSource = "qris" | "payment" | "orders";

/** One HTTP attempt to deliver a webhook, as `provider.deliveries` records it. */
export interface DeliveryAttempt {
  /** Same for every attempt (and duplicate) of one event. */
  deliveryId: string;
  source: WebhookSource;
  /** `payment.success`, `payment.expired`, `payment.callback` or `order.status`. */
  event: string;
  /** Target URL; values of query parameters named like token/secret/key are redacted. */
  url: string;
  method: string;
  /** 1 for the first try, 2–4 for the retries. */
  attempt: number;
  /** True for an injected duplicate copy. */
  duplicate: boolean;
  /** Clock time of the attempt. */
  at: Date;
  headers: Record<string, string>;
  body: string;
  /** Receiver's status, when it answered. */
  status?: number;
  responseBody?: string;
  /** Network error or timeout, when it did not answer. */
  error?: string;
  /** Whether this answer stops the retries. */
  acknowledged: boolean;
}

/** A webhook to deliver. */
export interface WebhookJob {
  source: WebhookSource;
  event: string;
  url: string;
  body: unknown;
  method?: string;
  callbackApiKey?: string;
}

/** Options of the dispatcher (the `webhooks` option of the provider, minus the URLs). */
export interface DispatcherOptions {
  /** Used for every delivery: pass a receiver's in-process `fetch` to skip sockets. Default: global `fetch`. */
  fetch?: (request: Request) => Promise<Response>;
  /** Delays before retry 1, 2, 3 (each counted from the previous attempt). Default 1, 5 and 15 minutes. */
  retryDelaysMs?: readonly number[];
  /** Real-time limit of one attempt. Default 10 000 ms. */
  timeoutMs?: number;
  /** How payment callbacks carry `callback_api_key`. Default `hmac`. */
  callbackAuth?: CallbackAuthMode;
}

/** The QR service's retry schedule: 1, 5 and 15 minutes (21 minutes in all). */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [60_000, 300_000, 900_000];

const SECRET_PARAM = /token|secret|key|signature|sig/i;

function redactUrl(raw: string): string {
  const url = new URL(raw);
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) url.searchParams.set(name, "[redacted]");
  }
  return url.toString();
}

async function acknowledges(source: WebhookSource, status: number, text: string): Promise<boolean> {
  if (status !== 200) return false;
  // The order service only needs a 200; the payment senders want `{ success, message }`.
  if (source === "orders") return true;
  try {
    const body = JSON.parse(text) as { success?: unknown; message?: unknown };
    return body.success === true && typeof body.message === "string";
  } catch {
    return false;
  }
}

/**
 * Delivers webhooks as the providers do: an attempt now, then retries on the clock until one is acknowledged or the
 * retries run out. Supports holding deliveries to release them out of order, and duplicating the next one.
 */
export class WebhookDispatcher {
  readonly attempts: DeliveryAttempt[] = [];
  #clock: Clock;
  #options: DispatcherOptions;
  #inFlight = new Set<Promise<unknown>>();
  #held: WebhookJob[] | undefined;
  #duplicates = 0;
  #nextId = 1;

  constructor(clock: Clock, options: DispatcherOptions = {}) {
    this.#clock = clock;
    this.#options = options;
  }

  /** Sends the first attempt of `job` (awaited) and schedules the retries it needs. Held jobs wait for release. */
  async dispatch(job: WebhookJob): Promise<void> {
    if (this.#held) {
      this.#held.push(job);
      return;
    }
    const copies = this.#duplicates;
    this.#duplicates = 0;
    await this.#track(this.#attempt(job, `dlv_${String(this.#nextId++).padStart(6, "0")}`, 1, copies));
  }

  /** The next dispatched event is sent `1 + copies` times in a row. */
  duplicateNext(copies = 1): void {
    this.#duplicates = copies;
  }

  /** From now on, queue deliveries instead of sending them. */
  hold(): void {
    this.#held ??= [];
  }

  /** Sends the queued deliveries (`reverse` by default, to simulate out-of-order arrival) and stops holding. */
  async release(order: "reverse" | "fifo" = "reverse"): Promise<void> {
    const queued = this.#held ?? [];
    this.#held = undefined;
    for (const job of order === "reverse" ? [...queued].reverse() : queued) await this.dispatch(job);
  }

  /** Deliveries waiting in {@link hold}. */
  get heldCount(): number {
    return this.#held?.length ?? 0;
  }

  /** Resolves once no attempt is in flight. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    this.#inFlight.add(promise);
    return promise.finally(() => this.#inFlight.delete(promise));
  }

  async #attempt(job: WebhookJob, deliveryId: string, attempt: number, copies = 0): Promise<void> {
    let acknowledged = false;
    for (let copy = 0; copy <= copies; copy++) {
      acknowledged = (await this.#send(job, deliveryId, attempt, copy > 0)) || acknowledged;
    }
    const delay = this.#retryDelays()[attempt - 1];
    if (!acknowledged && delay !== undefined) {
      this.#clock.setTimer(() => this.#track(this.#attempt(job, deliveryId, attempt + 1)), delay);
    }
  }

  #retryDelays(): readonly number[] {
    return this.#options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  }

  async #send(job: WebhookJob, deliveryId: string, attempt: number, duplicate: boolean): Promise<boolean> {
    const plain = this.#options.callbackAuth === "plain";
    const request = toWebhookRequest(job.body, {
      url: job.url,
      method: job.method ?? "POST",
      ...(job.callbackApiKey === undefined
        ? {}
        : { callbackApiKey: job.callbackApiKey, callbackAuth: this.#options.callbackAuth ?? "hmac" }),
    });
    const headers = { ...request.headers };
    if (plain && headers["x-callback-api-key"]) headers["x-callback-api-key"] = "[redacted]";
    const record: DeliveryAttempt = {
      deliveryId,
      source: job.source,
      event: job.event,
      url: redactUrl(request.url),
      method: request.method,
      attempt,
      duplicate,
      at: new Date(this.#clock.now()),
      headers,
      body: request.rawBody,
      acknowledged: false,
    };
    this.attempts.push(record);
    const send = this.#options.fetch ?? ((r: Request) => fetch(r));
    const timeoutMs = this.#options.timeoutMs ?? 10_000;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Raced as well as signalled: an injected fetch that ignores the signal must not hang the clock.
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const reason = new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError");
        controller.abort(reason);
        reject(reason);
      }, timeoutMs);
    });
    try {
      const exchange = async () => {
        const response = await send(new Request(request.toRequest(), { signal: controller.signal }));
        return { status: response.status, text: await response.text() };
      };
      const answer = await Promise.race([exchange(), timeout]);
      record.status = answer.status;
      record.responseBody = answer.text;
      record.acknowledged = await acknowledges(job.source, answer.status, answer.text);
    } catch (error) {
      record.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    } finally {
      clearTimeout(timer);
    }
    return record.acknowledged;
  }
}
