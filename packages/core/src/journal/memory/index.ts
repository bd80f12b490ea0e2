// The in-memory delivery journal: for development and tests, one process only. Bounded by count and by age.
import { WebhookConfigurationError } from "../../webhooks/errors.js";
import type { WebhookSource } from "../../webhooks/verifiers/types.js";
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
  // By id, in the order recorded (a Map keeps insertion order, so the first is the oldest recorded).
  readonly #entries = new Map<number, JournalEntry>();
  // Reference or key → ids of the entries that carry it.
  readonly #index = new Map<string, Set<number>>();
  #runs: JournalReconcileRun[] = [];
  #nextId = 1;
  /** No kept entry has a smaller id (eviction counts up from it). */
  #oldestId = 1;

  constructor(options: MemoryDeliveryJournalOptions = {}) {
    this.#maxEntries = positive("maxEntries", options.maxEntries ?? DEFAULT_JOURNAL_MAX_ENTRIES);
    this.#retentionMs = positive("retentionMs", options.retentionMs ?? DEFAULT_JOURNAL_RETENTION_MS);
    this.instance = options.instance ?? defaultJournalInstance();
    this.recordBodies = options.recordBodies === true;
    this.#clock = options.clock ?? Date.now;
  }

  async record(entries: readonly JournalEntry[]): Promise<void> {
    for (const given of entries) {
      const id = this.#nextId++;
      const { body, ...rest } = given;
      const entry: JournalEntry = {
        ...rest,
        id: String(id),
        references: { ...given.references },
        ...(this.recordBodies && typeof body === "string" ? { body: redactBody(body) } : {}),
      };
      this.#entries.set(id, entry);
      for (const term of termsOf(entry)) {
        const ids = this.#index.get(term);
        if (ids === undefined) this.#index.set(term, new Set([id]));
        else ids.add(id);
      }
    }
    // Ids grow by one: the oldest kept is found by counting up. (`keys().next()` walks every deleted slot a Map
    // keeps at its front until it rehashes: ~13 µs per entry at 10,000, most of a delivery's journal cost.)
    while (this.#entries.size > this.#maxEntries) {
      while (!this.#entries.has(this.#oldestId) && this.#oldestId < this.#nextId) this.#oldestId++;
      this.#remove(this.#oldestId);
    }
  }

  async search(query: JournalQuery): Promise<JournalEntry[]> {
    const limit = Math.min(
      Math.max(1, Math.floor(query.limit ?? DEFAULT_JOURNAL_SEARCH_LIMIT)),
      MAX_JOURNAL_SEARCH_LIMIT,
    );
    const outcomes = query.outcomes === undefined ? undefined : new Set(query.outcomes);
    const candidates =
      query.reference === undefined
        ? this.#entries.values()
        : [...(this.#index.get(query.reference) ?? [])].map((id) => this.#entries.get(id) as JournalEntry);
    const found: JournalEntry[] = [];
    for (const entry of candidates) {
      if (query.source !== undefined && entry.source !== query.source) continue;
      if (query.since !== undefined && entry.at < query.since) continue;
      if (query.before !== undefined && entry.at >= query.before) continue;
      if (outcomes !== undefined && !outcomes.has(entry.outcome)) continue;
      found.push(entry);
    }
    return found.sort(newestFirst).slice(0, limit);
  }

  async summarize(since: number): Promise<JournalSourceSummary[]> {
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
    for (const entry of this.#entries.values()) {
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
    this.#runs.push({ ...run, id: String(this.#nextId++), outcomes: { ...run.outcomes } });
    if (this.#runs.length > MAX_RECONCILE_RUNS) this.#runs = this.#runs.slice(-MAX_RECONCILE_RUNS);
  }

  async reconcileRuns(limit = 20): Promise<JournalReconcileRun[]> {
    const count = Math.min(Math.max(1, Math.floor(limit)), MAX_JOURNAL_SEARCH_LIMIT);
    return [...this.#runs].sort((a, b) => b.startedAt - a.startedAt).slice(0, count);
  }

  async deleteExpired(): Promise<number> {
    const cutoff = this.#clock() - this.#retentionMs;
    let deleted = 0;
    for (const [id, entry] of this.#entries) {
      if (entry.at >= cutoff) continue;
      this.#remove(id);
      deleted++;
    }
    this.#runs = this.#runs.filter((run) => run.finishedAt >= cutoff);
    return deleted;
  }

  async close(): Promise<void> {}

  #remove(id: number): void {
    const entry = this.#entries.get(id);
    if (entry === undefined) return;
    this.#entries.delete(id);
    for (const term of termsOf(entry)) {
      const ids = this.#index.get(term);
      ids?.delete(id);
      if (ids?.size === 0) this.#index.delete(term);
    }
  }
}

function termsOf(entry: JournalEntry): Set<string> {
  const terms = new Set<string>();
  for (const value of Object.values(entry.references)) if (typeof value === "string") terms.add(value);
  if (entry.idempotencyKey !== undefined) terms.add(entry.idempotencyKey);
  return terms;
}

function newestFirst(a: JournalEntry, b: JournalEntry): number {
  return b.at - a.at || Number(b.id) - Number(a.id);
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new WebhookConfigurationError(`MemoryDeliveryJournal: ${name} must be a positive number`);
  }
  return value;
}
