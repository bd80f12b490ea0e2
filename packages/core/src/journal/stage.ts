// The receiver's journal stage: builds one JournalEntry per delivery from what the stages told its note, and writes
// it without ever changing the delivery's answer. It comes with the journal (`DeliveryJournal.journalStage`), so a
// receiver without a journal bundles none of this.
import type { DeliveryContext, ReceivedDelivery } from "../webhooks/context.js";
import type { WebhookHttpResponse } from "../webhooks/contract.js";
import type { JournalNote, JournalTap, NotedDelivery, RunnableJournalStage } from "../webhooks/pipeline/journal.js";
import type { FailureReports } from "../webhooks/pipeline/report.js";
import { timeLimited } from "../webhooks/pipeline/store-operation.js";
import type { ReceiverConfig } from "../webhooks/receiver-config.js";
import { bodyHashKey, hashedKey, MAX_KEY_LENGTH } from "../webhooks/sources.js";
import { journalOutcomeOf, referencesOf, stateOf } from "./entry.js";
import { redactBody, summarizeError } from "./redact.js";
import type { DeliveryJournal, JournalEntry, JournalOrigin, JournalStage } from "./types.js";

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

/**
 * Which process answered, for `JournalEntry.instance` when the journal names none: the `HOSTNAME` environment
 * variable and the pid where the runtime has them, else `"unknown"`.
 */
export function defaultJournalInstance(): string {
  const runtime = (globalThis as { process?: { pid?: number; env?: Record<string, string | undefined> } }).process;
  const parts = [runtime?.env?.HOSTNAME, runtime?.pid].filter((part) => part !== undefined && part !== "");
  return parts.length === 0 ? "unknown" : parts.join(":");
}

// What the receiver gave the tap, shared by its notes.
interface Tap {
  readonly journal: DeliveryJournal;
  readonly config: ReceiverConfig;
  readonly reports: FailureReports;
  readonly instance: string;
}

function journalTap(journal: DeliveryJournal, config: ReceiverConfig, reports: FailureReports): JournalTap {
  const tap: Tap = { journal, config, reports, instance: journal.instance ?? defaultJournalInstance() };
  return { open: (origin, attempt) => new Note(tap, origin, attempt) };
}

/** One delivery's note: filled by the stages, turned into an entry once the delivery is answered. */
class Note implements JournalNote {
  error: unknown;
  #delivery: ReceivedDelivery | undefined;
  #event: unknown;
  #context: DeliveryContext | undefined;
  #startedAt = 0;
  #handlerMs: number | undefined;
  // The processed entry went in with the transaction; a failed in-transaction write turns later ones off.
  #written = false;
  #outsideOnly = false;

  constructor(
    private readonly tap: Tap,
    private readonly origin: JournalOrigin,
    private readonly attempt: number | undefined,
  ) {}

  read(delivery: ReceivedDelivery): void {
    this.#delivery = delivery;
    (delivery as NotedDelivery).note = this;
  }

  saw(event: unknown): void {
    this.#event = event;
    // Registered like applyEvent's slot, so that FailureReports.report fills `error` for this delivery.
    const failures = this.tap.reports.applyFailures;
    if (typeof event === "object" && event !== null && !failures.has(event)) failures.set(event, this);
  }

  ran(context: DeliveryContext): void {
    if (this.#context !== context) {
      this.#context = context;
      this.#startedAt = performance.now();
      this.#handlerMs = undefined;
    } else {
      this.#handlerMs = performance.now() - this.#startedAt;
    }
  }

  async inTransaction(transaction: unknown, timeoutMs: number): Promise<boolean> {
    if (this.#outsideOnly) return true;
    try {
      const entry = await this.#entry(200, "");
      await timeLimited(
        () => this.tap.journal.record([entry], transaction),
        timeoutMs,
        () => new Error(`The journal did not write within the transaction in ${timeoutMs} ms`),
      );
      this.#written = true;
      return true;
    } catch (error) {
      this.#outsideOnly = true;
      this.#failed(error, 200);
      return false;
    }
  }

  answered(response: WebhookHttpResponse): void {
    const event = this.#event;
    const failures = this.tap.reports.applyFailures;
    if (typeof event === "object" && event !== null && failures.get(event) === this) failures.delete(event);
    if (this.#written && response.status === 200) return;
    const status = response.status;
    this.#entry(status, response.body)
      .then((entry) => this.tap.journal.record([entry]))
      .catch((error: unknown) => this.#failed(error, status));
  }

  async #entry(httpStatus: number, answer: string): Promise<JournalEntry> {
    const { config, instance } = this.tap;
    const source = config.source;
    const event = this.#event;
    const refusedAsInvalid = event === undefined && httpStatus === 400;
    // Before verification nothing in the body is trusted: a 401 keeps only what happened, not what the body says.
    const described = event ?? (refusedAsInvalid ? lenientJson(this.#delivery) : undefined);
    const context = this.#context;
    const entry: Record<string, unknown> = {
      at: config.clock(),
      source,
      origin: this.origin,
      references: referencesOf(source, described),
      httpStatus,
      outcome: journalOutcomeOf(httpStatus, answer),
      instance,
    };
    if (event !== undefined) {
      entry.event = config.definition.eventName(event);
      entry.state = stateOf(source, event);
      entry.idempotencyKey = context?.idempotencyKey ?? (await this.#keyOf(event));
    }
    const attempt = this.attempt ?? context?.attempt;
    if (attempt !== undefined) entry.attempt = attempt;
    if (this.#handlerMs !== undefined) entry.handlerMs = Math.round(this.#handlerMs * 1000) / 1000;
    const error = httpStatus === 401 ? "verification failed" : this.#errorSummary(httpStatus, answer);
    if (error !== undefined) entry.error = error;
    if (this.tap.journal.recordBodies === true && httpStatus !== 401) {
      const text = this.#delivery?.body.text();
      if (text !== undefined) entry.body = redactBody(text);
    }
    for (const name of ["event", "state", "idempotencyKey"]) if (entry[name] === undefined) delete entry[name];
    return entry as unknown as JournalEntry;
  }

  #errorSummary(httpStatus: number, answer: string): string | undefined {
    if (this.error !== undefined) return summarizeError(this.error);
    if (httpStatus < 400) return undefined;
    try {
      return summarizeError((JSON.parse(answer) as { message?: unknown }).message ?? `HTTP ${httpStatus}`);
    } catch {
      return `HTTP ${httpStatus}`;
    }
  }

  // The key the receiver deduplicated on, for deliveries answered before a claim (duplicates, queued events).
  #keyOf(event: unknown): Promise<string> | string | undefined {
    const { config } = this.tap;
    const key = config.customKey?.(event) ?? config.definition.defaultKey(event);
    if (key === undefined) {
      const delivery = this.#delivery;
      return delivery === undefined ? undefined : bodyHashKey(config.source, config.crypto, delivery.body.bytes);
    }
    return key.length > MAX_KEY_LENGTH ? hashedKey(key, config.crypto) : key;
  }

  #failed(error: unknown, status: number): void {
    const { config, reports } = this.tap;
    const source = config.source;
    config.logger.error?.("Could not journal a webhook delivery; its answer is unchanged", { source, error });
    reports.report(error, { source, stage: "journal", status }).catch(() => {});
  }
}

// A body refused as invalid may still be JSON that names its payment or order: read leniently, for references only.
function lenientJson(delivery: ReceivedDelivery | undefined): unknown {
  const text = delivery?.body.text();
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
