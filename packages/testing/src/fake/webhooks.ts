import type { Clock } from "../clock.js";
import { type CallbackAuthMode, signCallbackBody } from "../webhook-request.js";
import type { IdSource } from "./ids.js";

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
  /** Clock time of the retry this attempt scheduled; absent when acknowledged or when the retries ran out. */
  nextAttemptAt?: Date;
  /** True when `webhooks.failNext(n)` made this attempt fail without reaching the app. */
  injectedFailure?: boolean;
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

/** The URL with the values of query parameters named like token/secret/key replaced by `[redacted]`. */
export function redactUrl(raw: string): string {
  const url = new URL(raw);
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) url.searchParams.set(name, "[redacted]");
  }
  return url.toString();
}

let lastRedacted: { url: string; redacted: string } | undefined;

/** What goes on the wire for one job. */
interface Wire {
  method: string;
  rawBody: string;
  headers: Record<string, string>;
  /** The headers as the log keeps them (a plain callback key redacted). */
  shown: Record<string, string>;
}

function acknowledges(source: WebhookSource, status: number, text: string): boolean {
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

const decoder = new TextDecoder();
const NATIVE_TEXT = Response.prototype.text;

/**
 * The app's answer as text, as `response.text()` reads it. On Node 20, reading a plain Response's stream here costs
 * about half of what `text()` does (its generic body reader); anything else (a subclass, a stand-in, a `text` of its
 * own) gets its `text()`.
 */
async function responseText(response: Response): Promise<string> {
  if (Object.getPrototypeOf(response) !== Response.prototype || response.text !== NATIVE_TEXT) return response.text();
  const body = response.body;
  if (!(body instanceof ReadableStream) || response.bodyUsed) return response.text();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  if (chunks.length === 1) return decoder.decode(chunks[0]);
  const bytes = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decoder.decode(bytes);
}

/**
 * Delivers webhooks as the providers do: an attempt now, then retries on the clock until one is acknowledged or the
 * retries run out. Supports holding deliveries to release them out of order, and duplicating the next one.
 */
export class WebhookDispatcher {
  /** Every attempt since creation or the last {@link clear}. */
  attempts: DeliveryAttempt[] = [];
  #clock: Clock;
  #options: DispatcherOptions;
  #inFlight = new Set<Promise<unknown>>();
  #held: WebhookJob[] | undefined;
  #duplicates = 0;
  #failures = 0;
  #ids: Pick<IdSource, "deliveryId">;
  #fetch: DispatcherOptions["fetch"];

  constructor(clock: Clock, ids: Pick<IdSource, "deliveryId">, options: DispatcherOptions = {}) {
    this.#clock = clock;
    this.#ids = ids;
    this.#options = options;
    this.#fetch = options.fetch;
  }

  /** The transport of later attempts (retries of earlier events too); `undefined` for the global `fetch`. */
  get fetch(): DispatcherOptions["fetch"] {
    return this.#fetch;
  }

  set fetch(transport: DispatcherOptions["fetch"]) {
    if (transport !== undefined && typeof transport !== "function") {
      throw new TypeError("the webhooks' fetch must be a function (request: Request) => Promise<Response>");
    }
    this.#fetch = transport;
  }

  /** Sends the first attempt of `job` (awaited) and schedules the retries it needs. Held jobs wait for release. */
  async dispatch(job: WebhookJob): Promise<void> {
    if (this.#held) {
      this.#held.push(job);
      return;
    }
    const copies = this.#duplicates;
    this.#duplicates = 0;
    await this.#track(this.#attempt(job, this.#wire(job), this.#ids.deliveryId(), 1, copies));
  }

  /**
   * Starts a new log and drops held deliveries and armed duplicates and failures (`provider.reset()`; retries are
   * timers, which the provider clears with the clock). An attempt still in flight lands in the old log. The
   * transport stays: it is configuration.
   */
  clear(): void {
    this.attempts = [];
    this.#held = undefined;
    this.#duplicates = 0;
    this.#failures = 0;
  }

  /** The next dispatched event is sent `1 + copies` times in a row. */
  duplicateNext(copies = 1): void {
    this.#duplicates = copies;
  }

  /** The next `count` attempts (first tries and retries alike) fail without reaching the app, as a dropped connection would. */
  failNext(count = 1): void {
    if (!Number.isInteger(count) || count < 0) throw new RangeError("failNext(count) needs a non-negative integer");
    this.#failures = count;
  }

  /** Attempts still to fail (see {@link failNext}). */
  get pendingFailures(): number {
    return this.#failures;
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

  async #attempt(job: WebhookJob, wire: Wire, deliveryId: string, attempt: number, copies = 0): Promise<void> {
    let acknowledged = false;
    let last: DeliveryAttempt | undefined;
    for (let copy = 0; copy <= copies; copy++) {
      last = await this.#send(job, wire, deliveryId, attempt, copy > 0);
      acknowledged = last.acknowledged || acknowledged;
    }
    const delay = this.#retryDelays()[attempt - 1];
    if (!acknowledged && delay !== undefined && last) {
      last.nextAttemptAt = new Date(this.#clock.now() + delay);
      this.#clock.setTimer(() => this.#track(this.#attempt(job, wire, deliveryId, attempt + 1)), delay);
    }
  }

  // A suite sends its deliveries to one or two URLs, fake after fake: remember the last one redacted.
  #redact(url: string): string {
    if (lastRedacted?.url !== url) lastRedacted = { url, redacted: redactUrl(url) };
    return lastRedacted.redacted;
  }

  #retryDelays(): readonly number[] {
    return this.#options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  }

  /** The bytes and headers of a job, made once for every attempt and copy (as `toWebhookRequest` builds them). */
  #wire(job: WebhookJob): Wire {
    const rawBody = JSON.stringify(job.body);
    const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "kirimbayar-fake" };
    let shown = headers;
    if (job.callbackApiKey !== undefined) {
      const plain = this.#options.callbackAuth === "plain";
      headers["x-callback-api-key"] = plain ? job.callbackApiKey : signCallbackBody(rawBody, job.callbackApiKey);
      if (plain) shown = { ...headers, "x-callback-api-key": "[redacted]" };
    }
    return { method: job.method ?? "POST", rawBody, headers, shown };
  }

  async #send(
    job: WebhookJob,
    request: Wire,
    deliveryId: string,
    attempt: number,
    duplicate: boolean,
  ): Promise<DeliveryAttempt> {
    const record: DeliveryAttempt = {
      deliveryId,
      source: job.source,
      event: job.event,
      url: this.#redact(job.url),
      method: request.method,
      attempt,
      duplicate,
      at: new Date(this.#clock.now()),
      headers: { ...request.shown },
      body: request.rawBody,
      acknowledged: false,
    };
    this.attempts.push(record);
    if (this.#failures > 0) {
      this.#failures -= 1;
      record.injectedFailure = true;
      record.error = "InjectedFailure: dropped by the fake before reaching the app (webhooks.failNext)";
      return record;
    }
    const injected = this.#fetch;
    const timeoutMs = this.#options.timeoutMs ?? 10_000;
    // Over the network the signal closes the socket of an app that does not answer. An injected (in-process) fetch
    // gets no signal: on Node 20 one costs a Request about as much again, and the race below settles the attempt
    // all the same.
    const controller = injected ? undefined : new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const reason = new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError");
        controller?.abort(reason);
        reject(reason);
      }, timeoutMs);
    });
    try {
      const exchange = async () => {
        const outgoing = new Request(job.url, {
          method: request.method,
          headers: request.headers,
          body: request.rawBody,
        });
        const response = await (injected
          ? injected(outgoing)
          : fetch(outgoing, { signal: controller?.signal ?? null }));
        return { status: response.status, text: await responseText(response) };
      };
      const answer = await Promise.race([exchange(), timeout]);
      record.status = answer.status;
      record.responseBody = answer.text;
      record.acknowledged = acknowledges(job.source, answer.status, answer.text);
    } catch (error) {
      record.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    } finally {
      clearTimeout(timer);
    }
    return record;
  }
}
