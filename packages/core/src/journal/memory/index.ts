// The in-memory delivery journal: for development and tests, one process only. Bounded by count and by age.
import { WebhookConfigurationError } from "../../webhooks/errors.js";
import type { WebhookSource } from "../../webhooks/verifiers/types.js";
import { drainDeferredEntries } from "../deferred.js";
import { defaultJournalInstance } from "../instance.js";
import { redactBody } from "../redact.js";
import { journalStage } from "../stage.js";
import type {
  DeliveryJournal,
  JournalEntry,
  JournalQuery,
  JournalReconcileRun,
  JournalSourceSummary,
  JournalStage,
} from "../types.js";
import { EntryRing, type KeptEntry } from "./entry-ring.js";

/** Options of {@link MemoryDeliveryJournal}. */
export interface MemoryDeliveryJournalOptions {
  /** Most entries kept; the oldest go first (default 10,000). */
  maxEntries?: number;
  /** How long an entry is kept (default 7 days); `deleteExpired()` removes older ones, as recording does. */
  retentionMs?: number;
  /** Which process writes (default: the host name and pid where known). */
  instance?: string;
  /** Keep each delivery's raw body, with every secret-looking field and query token redacted (default `false`). */
  recordBodies?: boolean;
  /** Epoch milliseconds; default `Date.now`. */
  clock?: () => number;
}

/** Default {@link MemoryDeliveryJournalOptions.maxEntries}. */
export const DEFAULT_JOURNAL_MAX_ENTRIES = 10_000;
/** Default retention of every journal: 7 days. */
export const DEFAULT_JOURNAL_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** Default `limit` of a journal search. */
export const DEFAULT_JOURNAL_SEARCH_LIMIT = 100;
/** Largest `limit` of a journal search: a larger one is lowered to it. */
export const MAX_JOURNAL_SEARCH_LIMIT = 1_000;
const MAX_RECONCILE_RUNS = 1_000;
const SOURCES: readonly WebhookSource[] = ["qris", "payment", "orders"];

/**
 * A {@link DeliveryJournal} in memory, indexed by every reference and idempotency key: for development and tests.
 * Entries live in this process only; use the PostgreSQL, MySQL or Redis journal in production.
 *
 * @example
 * const journal = new MemoryDeliveryJournal({ recordBodies: true });
 * const qris = createWebhookReceiver({ source: "qris", verify, journal });
 * const story = await journal.search({ reference: "h-1" });
 */
export class MemoryDeliveryJournal implements DeliveryJournal {
  readonly kind = "memory";
  readonly journalStage: JournalStage = journalStage;
  readonly instance: string;
  readonly recordBodies: boolean;
  readonly #maxEntries: number;
  readonly #retentionMs: number;
  readonly #clock: () => number;
  // The newest `maxEntries` entries, overwritten oldest first: nothing is unindexed on eviction.
  readonly #ring: EntryRing;
  // Reference or key → numbers of the entries that carried it, ascending (a number alone while it is one). Built at
  // search time from the entries recorded since the last search, so deliveries never pay for it; numbers of entries
  // gone since are skipped when read, and the index is built again once it holds more gone numbers than kept ones.
  #index = new Map<string, number | number[]>();
  /** Entries numbered up to this one are in the index. */
  #indexedUpTo = 0;
  /** Numbers the index holds. */
  #indexedCount = 0;
  #runs: JournalReconcileRun[] = [];
  #nextRunId = 1;

  constructor(options: MemoryDeliveryJournalOptions = {}) {
    this.#maxEntries = Math.max(
      1,
      Math.floor(positive("maxEntries", options.maxEntries ?? DEFAULT_JOURNAL_MAX_ENTRIES)),
    );
    this.#ring = new EntryRing(this.#maxEntries);
    this.#retentionMs = positive("retentionMs", options.retentionMs ?? DEFAULT_JOURNAL_RETENTION_MS);
    this.instance = options.instance ?? defaultJournalInstance();
    this.recordBodies = options.recordBodies === true;
    this.#clock = options.clock ?? Date.now;
  }

  async record(entries: readonly JournalEntry[]): Promise<void> {
    for (const given of entries) {
      // The body is kept only when asked, redacted (again, for entries recorded by other code than the receiver's
      // stage: redaction leaves redacted text as it is).
      const body = given.body;
      this.#ring.push(given, this.recordBodies && typeof body === "string" ? redactBody(body) : undefined);
    }
  }

  async search(query: JournalQuery): Promise<JournalEntry[]> {
    await drainDeferredEntries(this);
    const limit = Math.min(
      Math.max(1, Math.floor(query.limit ?? DEFAULT_JOURNAL_SEARCH_LIMIT)),
      MAX_JOURNAL_SEARCH_LIMIT,
    );
    const outcomes = query.outcomes === undefined ? undefined : new Set(query.outcomes);
    const candidates = query.reference === undefined ? this.#kept() : this.#withTerm(query.reference);
    const found: KeptEntry[] = [];
    for (const entry of candidates) {
      if (query.source !== undefined && entry.source !== query.source) continue;
      if (query.since !== undefined && entry.at < query.since) continue;
      if (query.before !== undefined && entry.at >= query.before) continue;
      if (outcomes !== undefined && !outcomes.has(entry.outcome)) continue;
      found.push(entry);
    }
    return found.sort(newestFirst).slice(0, limit).map(withId);
  }

  async summarize(since: number): Promise<JournalSourceSummary[]> {
    await drainDeferredEntries(this);
    const summaries = new Map(
      SOURCES.map((source) => [
        source,
        {
          source,
          deliveries: 0,
          failures: 0,
          refused: 0,
          duplicates: 0,
          lastSuccessAt: undefined as number | undefined,
        },
      ]),
    );
    for (const entry of this.#kept()) {
      const summary = summaries.get(entry.source);
      if (summary === undefined) continue;
      const status = entry.httpStatus;
      if (entry.origin === "webhook" && status >= 200 && status < 300) {
        summary.lastSuccessAt = Math.max(summary.lastSuccessAt ?? entry.at, entry.at);
      }
      if (entry.at < since) continue;
      summary.deliveries++;
      if (status >= 500) summary.failures++;
      else if (status >= 400 && status !== 409) summary.refused++;
      if (entry.outcome === "duplicate" || entry.outcome === "in_progress") summary.duplicates++;
    }
    return [...summaries.values()];
  }

  async recordReconcileRun(run: JournalReconcileRun): Promise<void> {
    this.#runs.push({ ...run, id: String(this.#nextRunId++), outcomes: { ...run.outcomes } });
    if (this.#runs.length > MAX_RECONCILE_RUNS) this.#runs = this.#runs.slice(-MAX_RECONCILE_RUNS);
  }

  async reconcileRuns(limit = 20): Promise<JournalReconcileRun[]> {
    const count = Math.min(Math.max(1, Math.floor(limit)), MAX_JOURNAL_SEARCH_LIMIT);
    return [...this.#runs].sort((a, b) => b.startedAt - a.startedAt).slice(0, count);
  }

  async deleteExpired(): Promise<number> {
    await drainDeferredEntries(this);
    const cutoff = this.#clock() - this.#retentionMs;
    const deleted = this.#ring.expire(cutoff);
    this.#runs = this.#runs.filter((run) => run.finishedAt >= cutoff);
    return deleted;
  }

  /** Records what receivers answered and handed over, not yet recorded. */
  async flush(): Promise<void> {
    await drainDeferredEntries(this);
  }

  async close(): Promise<void> {
    await drainDeferredEntries(this);
  }

  /** The entries kept, in no particular order. */
  #kept(): Generator<KeptEntry> {
    return this.#ring.kept();
  }

  /** The kept entry numbered `number`, if it still is. */
  #entry(number: number): KeptEntry | undefined {
    return this.#ring.get(number);
  }

  /** The kept entries carrying `term` as a reference or idempotency key. */
  #withTerm(term: string): KeptEntry[] {
    this.#catchUpIndex();
    const numbers = this.#index.get(term);
    if (numbers === undefined) return [];
    const found: KeptEntry[] = [];
    for (const number of typeof numbers === "number" ? [numbers] : numbers) {
      const entry = this.#entry(number);
      if (entry !== undefined) found.push(entry);
    }
    return found;
  }

  // Indexes the entries recorded since the last search; starts over when most numbers in it are of entries gone.
  #catchUpIndex(): void {
    const recorded = this.#ring.recorded;
    const oldestKept = Math.max(1, recorded - this.#maxEntries + 1);
    if (this.#indexedCount > 2 * this.#maxEntries) {
      this.#index = new Map();
      this.#indexedCount = 0;
      this.#indexedUpTo = 0;
    }
    for (let number = Math.max(this.#indexedUpTo + 1, oldestKept); number <= recorded; number++) {
      const entry = this.#entry(number);
      if (entry === undefined) continue;
      for (const term of termsOf(entry)) this.#indexTerm(term, number);
    }
    this.#indexedUpTo = recorded;
  }

  #indexTerm(term: string, number: number): void {
    const index = this.#index;
    const numbers = index.get(term);
    if (numbers === undefined) index.set(term, number);
    else if (typeof numbers === "number") {
      if (numbers === number) return;
      index.set(term, [numbers, number]);
    } else if (numbers[numbers.length - 1] !== number) numbers.push(number);
    else return;
    this.#indexedCount++;
  }
}

function withId({ number, ...entry }: KeptEntry): JournalEntry {
  return { ...entry, id: String(number) };
}

function termsOf(entry: KeptEntry): string[] {
  const terms: string[] = [];
  for (const value of Object.values(entry.references)) if (typeof value === "string") terms.push(value);
  if (entry.idempotencyKey !== undefined) terms.push(entry.idempotencyKey);
  return terms;
}

function newestFirst(a: KeptEntry, b: KeptEntry): number {
  return b.at - a.at || b.number - a.number;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new WebhookConfigurationError(`MemoryDeliveryJournal: ${name} must be a positive number`);
  }
  return value;
}
