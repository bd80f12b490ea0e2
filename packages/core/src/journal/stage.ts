// The receiver's journal stage: one JournalEntry per delivery, written without ever changing the delivery's answer.
// It comes with the journal (`DeliveryJournal.journalStage`), so a receiver without a journal bundles none of this.
//
// It sees a delivery at two points of the receiver: dispatch, which it wraps (every verified event, from a webhook,
// applyEvent or an inbox worker, is journalled with its answer), and the answer of `handle()` (deliveries refused
// before dispatch). In between, the pipeline tells the delivery's note when the handlers start (with the claim's
// context), and the receiver's failure reports tell the tap of a failure.
import type { IdempotencyTransaction } from "../idempotency/types.js";
import { RequestBody } from "../webhooks/body.js";
import type { DeliveryContext, ReceivedDelivery } from "../webhooks/context.js";
import type { WebhookHttpResponse } from "../webhooks/contract.js";
import type {
  Dispatch,
  JournalNote,
  JournalOptions,
  JournalTap,
  NotedDelivery,
  RunnableJournalStage,
} from "../webhooks/pipeline/journal.js";
import type { FailureReports } from "../webhooks/pipeline/report.js";
import { timeLimited } from "../webhooks/pipeline/store-operation.js";
import type { ReceiverConfig } from "../webhooks/receiver-config.js";
import { fixedWebhookResponse } from "../webhooks/response.js";
import { bodyHashKey, hashedKey, MAX_KEY_LENGTH } from "../webhooks/sources.js";
import { secretsOfVerifiers } from "../webhooks/verifiers/secret-hook.js";
import { type DeferredEntries, type DeferredEntry, deferredEntriesOf } from "./deferred.js";
import { journalOutcomeOf, referencesOf, stateOf } from "./entry.js";
import { defaultJournalInstance } from "./instance.js";
import { redactBody, type SecretMask, secretRedactor, summarizeError } from "./redact.js";
import { writesInTransaction } from "./transactional-journal.js";
import type { DeliveryJournal, JournalEntry, JournalOrigin, JournalReferences, JournalStage } from "./types.js";

/**
 * The journal stage, for a {@link DeliveryJournal} to carry as its `journalStage`: the receiver loads it from the
 * journal, so that apps without a journal never bundle it.
 *
 * @example
 * class MyJournal implements DeliveryJournal {
 *   readonly kind = "mine";
 *   readonly journalStage = journalStage;
 *   // record, search, summarize ...
 * }
 */
export const journalStage: JournalStage = { kind: "kirimbayar.journal-stage", run: journalTap } as RunnableJournalStage;

// Far above the deliveries one process answers at once: `done` comes a few microtasks after each answer.
const MAX_ANSWERS_AWAITING_DONE = 100_000;
// Failures reported for events no note took (reported after their answer, by a handler still running past its time
// limit): forgotten past this many.
const MAX_UNCLAIMED_FAILURES = 1_000;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * What a receiver's notes share. A delivery costs the journal one note, one promise and one entry built off the
 * delivery path: nothing is looked up by event on the way (a lookup per delivery cost about 4 % of a webhook
 * route's CPU in bench/journal-overhead), failures excepted.
 */
class Tap implements JournalTap {
  readonly instance: string;
  /**
   * Answers that dispatch gave to `handle()` (and journalled): `done`, called with each right after, skips and forgets
   * them. A Set rather than a WeakSet: weak entries cost every garbage collection, and these live a few microtasks.
   */
  readonly answered = new Set<WebhookHttpResponse>();
  /** Errors the receiver reported for events being dispatched (rare: written only on failure), until answered. */
  readonly failures = new Map<object, unknown>();
  /** Where answered deliveries wait for their entries to be built and recorded, in batches. */
  readonly deferred: DeferredEntries;
  /** Whether a transactional delivery's processed entry is written in its transaction (else after the answer). */
  readonly inTransaction: boolean;
  /**
   * Masks the receiver's own verifier secrets (webhook tokens, callback keys, HMAC secrets) in what an entry says,
   * before anything in it is cut, whether or not a console is given them later.
   */
  readonly mask: SecretMask;

  constructor(
    readonly journal: DeliveryJournal,
    readonly config: ReceiverConfig,
    readonly reports: FailureReports,
    outsideTransaction: boolean,
  ) {
    // Checked first: a journal that cannot write in the store's transactions is refused when the receiver is built.
    this.inTransaction = writesInTransaction(journal, config, outsideTransaction);
    this.mask = secretRedactor(secretsOfVerifiers([...config.requestVerifiers, ...config.eventVerifiers]));
    this.instance = journal.instance ?? defaultJournalInstance();
    this.deferred = deferredEntriesOf(journal);
    // Every failure reported with its event passes here first (wrapped, as the journal wraps dispatch, so that a
    // receiver without a journal carries none of this).
    const report = reports.report.bind(reports);
    reports.report = (error, context) => {
      this.#failed(context.event, error);
      return report(error, context);
    };
  }

  watch(dispatch: Dispatch): Dispatch & { readonly journal: JournalTap } {
    const watched: Dispatch = (event, delivery) => {
      const note = new Note(this, event, delivery as NotedDelivery);
      let outcome: ReturnType<Dispatch>;
      try {
        outcome = dispatch(event, delivery);
      } catch (error) {
        return this.#threw(note, delivery.origin, error);
      }
      if (!(outcome instanceof Promise)) return note.answered(outcome);
      return outcome.then(
        (response) => note.answered(response),
        (error: unknown) => this.#threw(note, delivery.origin, error),
      );
    };
    return Object.assign(watched, { journal: this });
  }

  // Dispatch threw (an app's idempotency `key` function, an internal error). A webhook is answered here as `handle()`
  // answers a throw (the same log line and 500), so that `done` knows the answer and the delivery is journalled once,
  // with its references and the error; an applied event's caller gets the error, as without a journal.
  #threw(note: Note, origin: ReceivedOrigin, error: unknown): WebhookHttpResponse {
    if (origin !== undefined) {
      note.failed(error, INTERNAL_ERROR());
      throw error;
    }
    const { logger, source } = this.config;
    logger.error?.("Unexpected error while processing a webhook", { source, error });
    return note.failed(error, INTERNAL_ERROR());
  }

  done(response: WebhookHttpResponse, rawBody: unknown, origin: JournalOrigin = "webhook", attempt?: number): void {
    if (this.answered.delete(response)) return;
    this.deferred.add(new Refusal(this, response, rawBody, origin, attempt, this.config.clock()));
  }

  /** The fields every entry has, and the body when the journal keeps bodies. */
  entry(
    at: number,
    httpStatus: number,
    answer: string,
    origin: JournalOrigin,
    event: unknown,
    described: unknown,
    body: RequestBody | undefined,
  ): Mutable<JournalEntry> {
    const { source } = this.config;
    const mask = this.mask;
    const entry: Mutable<JournalEntry> = {
      at,
      source,
      origin,
      references: maskedReferences(referencesOf(source, event ?? described), mask),
      httpStatus,
      outcome: journalOutcomeOf(httpStatus, answer),
      instance: this.instance,
    };
    if (event !== undefined) {
      entry.event = mask(this.config.definition.eventName(event));
      const state = stateOf(source, event);
      if (state !== undefined) entry.state = mask(state);
    }
    const text = this.journal.recordBodies === true ? body?.text() : undefined;
    if (text !== undefined) entry.body = redactBody(text, mask);
    return entry;
  }

  failed(error: unknown, status: number): void {
    const { config, reports } = this;
    const source = config.source;
    config.logger.error?.("Could not journal a webhook delivery; its answer is unchanged", { source, error });
    reports.report(error, { source, stage: "journal", status }).catch(() => {});
  }

  #failed(event: unknown, error: unknown): void {
    if (typeof event !== "object" || event === null) return;
    const failures = this.failures;
    if (failures.size >= MAX_UNCLAIMED_FAILURES) failures.clear();
    failures.set(event, error);
  }

  /** The error reported for `event` while it was dispatched, if any (taken: reported once). */
  takeFailure(event: unknown): unknown {
    const failures = this.failures;
    if (failures.size === 0 || typeof event !== "object" || event === null) return undefined;
    const error = failures.get(event);
    if (error !== undefined) failures.delete(event);
    return error;
  }
}

function journalTap(options: JournalOptions, config: ReceiverConfig, reports: FailureReports): JournalTap {
  return new Tap(options.journal, config, reports, options.journalOutsideTransaction === true);
}

/** A delivery refused before dispatch (or failed before it): its entry, built when its batch is recorded. */
class Refusal implements DeferredEntry {
  constructor(
    private readonly tap: Tap,
    private readonly response: WebhookHttpResponse,
    private readonly rawBody: unknown,
    private readonly origin: JournalOrigin,
    private readonly attempt: number | undefined,
    private readonly at: number,
  ) {}

  build(): JournalEntry {
    const body = bodyOf(this.rawBody);
    const { status, body: answer } = this.response;
    // Before verification nothing in the body is trusted: a 401 keeps only what happened, not what the body says.
    const described = status === 400 ? lenientJson(body) : undefined;
    const entry = this.tap.entry(
      this.at,
      status,
      answer,
      this.origin,
      undefined,
      described,
      status === 401 ? undefined : body,
    );
    if (this.attempt !== undefined) entry.attempt = this.attempt;
    const error = status === 401 ? "verification failed" : answerError(status, answer, this.tap.mask);
    if (error !== undefined) entry.error = error;
    return entry;
  }

  notRecorded(error: unknown): void {
    this.tap.failed(error, this.response.status);
  }
}

/**
 * One dispatched event, hung on its delivery (`delivery.journal`): the pipeline tells it when the handlers start,
 * the failure reports tell the tap. Once answered it waits in the journal's queue with what its entry needs (the
 * answer, its time, the handlers' time and error), and builds the entry there.
 */
class Note implements JournalNote, DeferredEntry {
  error: unknown;
  #context: DeliveryContext | undefined;
  #startedAt = 0;
  #handlerMs: number | undefined;
  // The processed entry went in with the transaction; a failed in-transaction write turns later ones off.
  #written = false;
  #outsideOnly = false;
  // Set when answered: what the entry says.
  #at = 0;
  #status = 0;
  #answer = "";

  constructor(
    private readonly tap: Tap,
    private readonly event: unknown,
    private readonly delivery: NotedDelivery,
  ) {
    delivery.journal = this;
  }

  started(context: DeliveryContext): void {
    // A new context is a new run (the transactional stage runs a delivery again after a failed journal write).
    this.#context = context;
    this.#startedAt = performance.now();
    this.#handlerMs = undefined;
  }

  async inTransaction(transaction: IdempotencyTransaction, timeoutMs: number): Promise<boolean> {
    // Allowed outside (`journalOutsideTransaction`), or turned off by an earlier failed write: after the answer.
    if (!this.tap.inTransaction || this.#outsideOnly) return true;
    try {
      const { journal } = this.tap;
      // The store's own connection, whatever connection the journal was given (checked when the receiver was built).
      const sql = transaction.sql;
      const write = journal.recordInTransaction;
      if (sql === undefined || write === undefined) {
        throw new Error("The idempotency store's transaction runs no statement of the journal (it has no `sql`)");
      }
      this.#settle(200, "");
      const entry = await this.build();
      await timeLimited(
        () => write.call(journal, [entry], sql),
        timeoutMs,
        () => new Error(`The journal did not write within the transaction in ${timeoutMs} ms`),
      );
      this.#written = true;
      return true;
    } catch (error) {
      this.#outsideOnly = true;
      this.tap.failed(error, 200);
      return false;
    }
  }

  answered(response: WebhookHttpResponse): WebhookHttpResponse {
    // Only `handle()` calls `done` (webhooks have no origin); applied events' answers are never looked up.
    if (this.delivery.origin === undefined) this.#markAnswered(response);
    const reported = this.tap.takeFailure(this.event);
    if (reported !== undefined) this.error = reported;
    if (this.#written && response.status === 200) return response;
    this.#settle(response.status, response.body);
    this.tap.deferred.add(this);
    return response;
  }

  failed(error: unknown, response: WebhookHttpResponse): WebhookHttpResponse {
    // The error the receiver reported first (taken when answered) wins over the one dispatch threw.
    this.error = error;
    return this.answered(response);
  }

  notRecorded(error: unknown): void {
    this.tap.failed(error, this.#status);
  }

  /** The entry, from what was settled at the answer; a promise only when the key must be hashed. */
  build(): JournalEntry | Promise<JournalEntry> {
    const key = this.#context?.idempotencyKey ?? this.#keyOf();
    if (key instanceof Promise) return key.then((hashed) => this.#entry(hashed));
    return this.#entry(key);
  }

  #markAnswered(response: WebhookHttpResponse): void {
    const answered = this.tap.answered;
    // Bounded all the same: an answer whose `done` never came (a telemetry hook that threw) is not kept for ever.
    if (answered.size >= MAX_ANSWERS_AWAITING_DONE) answered.clear();
    answered.add(response);
  }

  // What the entry says is taken at the answer (its time, the handlers' time so far).
  #settle(status: number, answer: string): void {
    this.#at = this.tap.config.clock();
    this.#status = status;
    this.#answer = answer;
    // The handlers ran from their start until now: their own work and the delivery's completion after it, or until
    // their time limit when they are still running.
    if (this.#handlerMs === undefined && this.#context !== undefined) {
      this.#handlerMs = performance.now() - this.#startedAt;
    }
  }

  #entry(key: string | undefined): JournalEntry {
    const delivery = this.delivery;
    const journalAs = delivery.journalAs;
    const origin = journalAs?.origin ?? delivery.origin ?? "webhook";
    const httpStatus = this.#status;
    const entry = this.tap.entry(this.#at, httpStatus, this.#answer, origin, this.event, undefined, delivery.body);
    if (key !== undefined) entry.idempotencyKey = this.tap.mask(key);
    const attempt = journalAs?.attempt ?? this.#context?.attempt;
    if (attempt !== undefined) entry.attempt = attempt;
    const handlerMs = this.#handlerMs;
    if (handlerMs !== undefined) entry.handlerMs = Math.round(handlerMs * 1000) / 1000;
    const failure = this.error;
    const mask = this.tap.mask;
    const error = failure === undefined ? answerError(httpStatus, this.#answer, mask) : summarizeError(failure, mask);
    if (error !== undefined) entry.error = error;
    return entry;
  }

  // The key the receiver deduplicates on, for events answered before a claim (duplicates, queued events).
  #keyOf(): Promise<string> | string | undefined {
    const { config } = this.tap;
    let key: string | undefined;
    try {
      key = config.customKey?.(this.event) ?? config.definition.defaultKey(this.event);
    } catch {
      return undefined; // the app's key function threw: the entry (of that failure) goes without a key
    }
    if (key === undefined) return bodyHashKey(config.source, config.crypto, this.delivery.body.bytes);
    return key.length > MAX_KEY_LENGTH ? hashedKey(key, config.crypto) : key;
  }
}

/** The receiver's answer to a delivery whose processing threw (as `handle()` answers it). */
const INTERNAL_ERROR = fixedWebhookResponse(500, "Internal error while processing the webhook");
type ReceivedOrigin = ReceivedDelivery["origin"];

// The message of a refusal or failure the receiver answered, as the entry's error.
function answerError(status: number, answer: string, mask: SecretMask): string | undefined {
  if (status < 400) return undefined;
  try {
    return summarizeError((JSON.parse(answer) as { message?: unknown }).message ?? `HTTP ${status}`, mask);
  } catch {
    return `HTTP ${status}`;
  }
}

// The references with secrets masked, the same object when none holds one (the common case: no copy).
function maskedReferences(references: JournalReferences, mask: SecretMask): JournalReferences {
  let masked: Record<string, string> | undefined;
  for (const [name, value] of Object.entries(references) as [string, string][]) {
    const safe = mask(value);
    if (safe !== value) {
      masked ??= { ...references };
      masked[name] = safe;
    }
  }
  return masked ?? references;
}

function bodyOf(rawBody: unknown): RequestBody | undefined {
  if (typeof rawBody !== "string" && !(rawBody instanceof Uint8Array) && !(rawBody instanceof ArrayBuffer)) {
    return undefined;
  }
  return new RequestBody(rawBody);
}

// A body refused as invalid may still be JSON that names its payment or order: read leniently, for references only.
function lenientJson(body: RequestBody | undefined): unknown {
  const text = body?.text();
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
