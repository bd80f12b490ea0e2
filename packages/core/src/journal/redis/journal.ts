import {
  hasHashTag,
  type RedisConnection,
  type RedisLikeClient,
  redisConnection,
} from "../../idempotency/redis/command-sender.js";
import { raceTimer } from "../../timer-delay.js";
import { drainDeferredEntries } from "../deferred.js";
import { journalStage } from "../stage.js";
import { DeliveryJournalWriteError, writeFailed } from "../store-support/errors.js";
import {
  COLUMN_CAPS,
  DEFAULT_JOURNAL_RETENTION_MS,
  isFailure,
  isRefused,
  isWebhookSuccess,
  JOURNAL_SOURCES,
  normalizeQuery,
  REFERENCE_FIELDS,
  storable,
  summariesOf,
} from "../store-support/fields.js";
import { type JournalBatchingOptions, WriteBehind } from "../store-support/write-behind.js";
import type {
  DeliveryJournal,
  JournalEntry,
  JournalQuery,
  JournalReconcileRun,
  JournalSourceSummary,
} from "../types.js";
import { SEARCH_SCRIPT, WRITE_SCRIPT } from "./scripts.js";

/** Options of {@link RedisDeliveryJournal}. */
export interface RedisDeliveryJournalOptions {
  /**
   * A client you created and connected; the journal never closes it: ioredis (`Redis`, also in Sentinel mode, or
   * `Redis.Cluster`) or node-redis v4/v5 (`createClient`, `createCluster`, `createSentinel`).
   */
  client: RedisLikeClient;
  /**
   * Prefix of every key; default `"{kirimbayar:journal}:"`. Its `{hash tag}` keeps every key of the journal on one
   * Redis Cluster slot, which its scripts need: with a cluster client a prefix without one is refused.
   */
  keyPrefix?: string;
  /** Entries the stream keeps (`XADD … MAXLEN ~`, default 100,000): the bound of the journal's memory. */
  maxEntries?: number;
  /** How long entries and their indexes are kept (default 7 days); see {@link RedisDeliveryJournal.deleteExpired}. */
  retentionMs?: number;
  /**
   * Entries a search by one reference finds at most, newest (default 1,000): a flood of one reference stays bounded
   * (its index keeps at most a quarter more, cut back in one go).
   */
  maxPerReference?: number;
  /** Store each entry's (already redacted) `body` (default `false`). */
  recordBodies?: boolean;
  /** Which process writes (`JournalEntry.instance`); default: the host name and pid where known. */
  instance?: string;
  /** How `record()` calls are gathered into one script call (one round trip per batch). */
  batching?: JournalBatchingOptions;
  /** Hears of entries dropped because the batching buffer was full (`DeliveryJournalOverflowError`). */
  onError?: (error: unknown) => void;
  /** Time one Redis command may take before it fails (default 2,000 ms). */
  operationTimeoutMs?: number;
}

// A stream id's time is when Redis stored the entry, a little after its `at`: reads by time look this much further.
const CLOCK_SLACK_MS = 60_000;
const SCAN_CHUNK = 1_000;
const MAX_RUNS = 1_000;

/**
 * The delivery journal in Redis: a capped stream (`XADD … MAXLEN ~ maxEntries`) of entries as JSON, and per
 * reference (and idempotency key) a string of stream ids (a search reads the newest `maxPerReference`) with a TTL, so a search by
 * reference reads only its matches. Entries are batched (one script call per batch, see `batching`); {@link RedisDeliveryJournal.close}
 * writes what is left. The transaction argument of `record` is ignored (Redis has none shared with the effect).
 *
 * Summaries scan the stream back to the window's start (bounded by `maxEntries`); the last success of each source
 * is kept in its own key, so a source silent for longer than the window still shows when it last succeeded.
 *
 * @example
 * const journal = new RedisDeliveryJournal({ client: redis });
 * createWebhookReceiver({ source: "qris", verify, idempotency: { store }, journal });
 */
export class RedisDeliveryJournal implements DeliveryJournal {
  /** `"redis"`. */
  readonly kind = "redis";
  /** The receiver's journal stage, brought by the journal. */
  readonly journalStage = journalStage;
  /** Whether entries' bodies are stored. */
  readonly recordBodies: boolean;
  /** Which process writes, when the option named one. */
  readonly instance?: string;
  readonly #connection: RedisConnection;
  readonly #prefix: string;
  readonly #stream: string;
  readonly #maxEntries: number;
  readonly #retentionMs: number;
  readonly #maxPerReference: number;
  readonly #timeoutMs: number;
  readonly #buffer: WriteBehind<JournalEntry>;
  readonly #scripts = new Map<string, string>();

  constructor(options: RedisDeliveryJournalOptions) {
    this.#connection = redisConnection(options?.client, "RedisDeliveryJournal");
    this.#prefix = options.keyPrefix ?? "{kirimbayar:journal}:";
    if (this.#connection.cluster && !hasHashTag(this.#prefix)) {
      throw new TypeError(
        `RedisDeliveryJournal: with a Redis Cluster client, keyPrefix must carry a hash tag such as ` +
          `"{kirimbayar:journal}:" (got "${this.#prefix}"): the journal's scripts write keys that must share a slot`,
      );
    }
    this.#stream = `${this.#prefix}stream`;
    this.#maxEntries = positiveInteger(options.maxEntries, 100_000, "maxEntries");
    this.#retentionMs = positiveInteger(options.retentionMs, DEFAULT_JOURNAL_RETENTION_MS, "retentionMs");
    this.#maxPerReference = positiveInteger(options.maxPerReference, 1_000, "maxPerReference");
    this.#timeoutMs = positiveInteger(options.operationTimeoutMs, 2_000, "operationTimeoutMs");
    this.recordBodies = options.recordBodies === true;
    if (options.instance !== undefined) this.instance = options.instance;
    this.#buffer = new WriteBehind(
      (entries) => this.#write(entries),
      options.batching ?? {},
      (error) => {
        options.onError?.(error);
      },
    );
  }

  /** Entries dropped since the journal was built because its batching buffer was full. */
  get dropped(): number {
    return this.#buffer.dropped;
  }

  /** Records entries (batched); rejects with a `DeliveryJournalWriteError` when Redis did not take them. */
  record(entries: readonly JournalEntry[], _transaction?: unknown): Promise<void> {
    return this.#buffer.add(entries);
  }

  async search(query: JournalQuery): Promise<JournalEntry[]> {
    const q = normalizeQuery(query);
    const oldest = this.#oldestKept();
    const since = Math.max(q.since ?? oldest, oldest);
    const outcomes = q.outcomes === undefined ? undefined : new Set<string>(q.outcomes);
    const matches = (entry: JournalEntry) =>
      entry.at >= since &&
      (q.before === undefined || entry.at < q.before) &&
      (q.source === undefined || entry.source === q.source) &&
      (outcomes === undefined || outcomes.has(entry.outcome));
    const found: JournalEntry[] = [];
    if (q.reference !== undefined) {
      const indexes = [...new Set([q.reference, q.key as string])].map((value) => `${this.#prefix}refs:${value}`);
      const reply = await this.#script(SEARCH_SCRIPT, [this.#stream, ...indexes], [String(this.#maxPerReference)]);
      const flat = Array.isArray(reply) ? (reply as unknown[]) : [];
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const entry = parseEntry(String(flat[i]), flat[i + 1]);
        if (entry !== undefined && matches(entry)) found.push(entry);
      }
    } else {
      await this.#scanBack(since, (entry) => {
        if (matches(entry)) found.push(entry);
        return found.length < q.limit;
      });
    }
    found.sort((a, b) => b.at - a.at || compareIds(b.id as string, a.id as string));
    return found.slice(0, q.limit);
  }

  async summarize(since: number): Promise<JournalSourceSummary[]> {
    const counts = new Map<string, { deliveries: number; failures: number; refused: number; duplicates: number }>();
    const from = Math.max(since, this.#oldestKept());
    await this.#scanBack(from, (entry) => {
      if (entry.at < from) return true;
      const row = counts.get(entry.source) ?? { deliveries: 0, failures: 0, refused: 0, duplicates: 0 };
      row.deliveries++;
      if (isFailure(entry.httpStatus)) row.failures++;
      if (isRefused(entry.httpStatus)) row.refused++;
      if (entry.outcome === "duplicate" || entry.outcome === "in_progress") row.duplicates++;
      counts.set(entry.source, row);
      return true;
    });
    const last = await Promise.all(
      JOURNAL_SOURCES.map(async (source) => ({
        source,
        last_ms: await this.#command(["GET", `${this.#prefix}last:${source}`]),
      })),
    );
    return summariesOf(
      [...counts].map(([source, row]) => ({ source, ...row })),
      last,
    );
  }

  async recordReconcileRun(run: JournalReconcileRun): Promise<void> {
    const key = `${this.#prefix}runs`;
    const stored = { ...run, id: `${Date.now()}-${Math.random().toString(36).slice(2, 10)}` };
    try {
      await this.#command(["LPUSH", key, JSON.stringify(stored)]);
      await this.#command(["LTRIM", key, "0", String(MAX_RUNS - 1)]);
      await this.#command(["PEXPIRE", key, String(this.#retentionMs)]);
    } catch (error) {
      throw writeFailed("Redis journal", "reconcile run", error);
    }
  }

  async reconcileRuns(limit = 20): Promise<JournalReconcileRun[]> {
    const bounded = Number.isFinite(limit) ? Math.min(MAX_RUNS, Math.max(1, Math.floor(limit))) : 20;
    const reply = await this.#command(["LRANGE", `${this.#prefix}runs`, "0", String(MAX_RUNS - 1)]);
    const oldest = this.#oldestKept();
    const runs = (Array.isArray(reply) ? reply : [])
      .map((raw) => JSON.parse(String(raw)) as JournalReconcileRun)
      .filter((run) => run.finishedAt >= oldest);
    runs.sort((a, b) => b.startedAt - a.startedAt);
    return runs.slice(0, bounded);
  }

  /**
   * Drops the stream's entries stored before the retention (`XTRIM MINID`), then those among the oldest 10,000
   * whose `at` is past it; returns how many. Indexes expire by their TTL; entries past retention are never returned.
   */
  async deleteExpired(): Promise<number> {
    const cutoff = this.#oldestKept();
    let deleted = Number(await this.#command(["XTRIM", this.#stream, "MINID", String(cutoff)]));
    let start = "-";
    for (let chunk = 0; chunk < 10; chunk++) {
      const reply = await this.#command(["XRANGE", this.#stream, start, "+", "COUNT", String(SCAN_CHUNK)]);
      const records = Array.isArray(reply) ? (reply as [string, unknown[]][]) : [];
      const old = records
        .map(([id, fields]) => parseEntry(String(id), fields?.[1]))
        .filter((entry): entry is JournalEntry => entry !== undefined && entry.at < cutoff)
        .map((entry) => entry.id as string);
      if (old.length > 0) deleted += Number(await this.#command(["XDEL", this.#stream, ...old]));
      if (records.length < SCAN_CHUNK) break;
      start = `(${String(records[records.length - 1]?.[0])}`;
    }
    return deleted;
  }

  /** Writes the entries still buffered now (the timer would within `flushIntervalMs`). */
  async flush(): Promise<void> {
    // What receivers answered and handed over is recorded first (see journal/deferred.ts).
    await drainDeferredEntries(this);
    await this.#buffer.flush();
  }

  /** Writes what is still buffered; later `record()` calls reject. The client you passed stays open. */
  async close(): Promise<void> {
    await drainDeferredEntries(this);
    await this.#buffer.close();
  }

  #oldestKept(): number {
    return Date.now() - this.#retentionMs;
  }

  async #write(entries: JournalEntry[]): Promise<void> {
    const args = [String(this.#maxEntries), String(this.#retentionMs), this.#prefix, String(this.#maxPerReference)];
    // Each source's last webhook success in the batch travels once, ahead of the entries (not two arguments each).
    const lastSuccess = new Map<string, number>();
    const entryArgs: string[] = [];
    for (const entry of entries) {
      const stored = storedEntry(entry, this.recordBodies);
      // Each index once, even when two references (or a reference and the key) carry the same text.
      const references: string[] = [];
      for (const name of REFERENCE_FIELDS) {
        const value = stored.references[name];
        if (value !== undefined && !references.includes(value)) references.push(value);
      }
      const key = stored.idempotencyKey;
      if (key !== undefined && !references.includes(key)) references.push(key);
      if (isWebhookSuccess(stored.origin, stored.httpStatus)) {
        const at = stored.at as number;
        if (at > (lastSuccess.get(stored.source) ?? Number.NEGATIVE_INFINITY)) lastSuccess.set(stored.source, at);
      }
      entryArgs.push(JSON.stringify(stored), String(references.length), ...references);
    }
    args.push(String(lastSuccess.size));
    for (const [source, at] of lastSuccess) args.push(source, String(at));
    for (const arg of entryArgs) args.push(arg);
    try {
      await this.#script(WRITE_SCRIPT, [this.#stream], args);
    } catch (error) {
      throw writeFailed("Redis journal", "write", error);
    }
  }

  // Newest first, from now back to `since` (by stream time, with slack), at most the stream's bound; `visit` says
  // whether to go on.
  async #scanBack(since: number, visit: (entry: JournalEntry) => boolean): Promise<void> {
    let end = "+";
    const floor = String(Math.max(0, since - CLOCK_SLACK_MS));
    for (let scanned = 0; scanned < this.#maxEntries + SCAN_CHUNK; scanned += SCAN_CHUNK) {
      const reply = await this.#command(["XREVRANGE", this.#stream, end, floor, "COUNT", String(SCAN_CHUNK)]);
      const records = Array.isArray(reply) ? (reply as [string, unknown[]][]) : [];
      for (const [id, fields] of records) {
        const entry = parseEntry(String(id), fields?.[1]);
        if (entry !== undefined && !visit(entry)) return;
      }
      if (records.length < SCAN_CHUNK) return;
      end = `(${String(records[records.length - 1]?.[0])}`;
    }
  }

  // EVALSHA of a script loaded once. A server without it (restarted, a failover's new master, another cluster node
  // than SCRIPT LOAD reached) gets it by EVAL, which caches it there under the same SHA for the next EVALSHA.
  async #script(script: string, keys: string[], args: string[]): Promise<unknown> {
    const key = keys[0] as string;
    let sha = this.#scripts.get(script);
    if (sha === undefined) {
      sha = String(await this.#command(["SCRIPT", "LOAD", script], key));
      this.#scripts.set(script, sha);
    }
    try {
      return await this.#command(["EVALSHA", sha, String(keys.length), ...keys, ...args], key);
    } catch (error) {
      if (!String((error as Error)?.message ?? "").includes("NOSCRIPT")) throw error;
      return this.#command(["EVAL", script, String(keys.length), ...keys, ...args], key);
    }
  }

  // `key` routes the command in a cluster: the command's own key by default (every command here names one first).
  async #command(args: string[], key: string | undefined = args[1]): Promise<unknown> {
    return raceTimer(this.#connection.send(args, key), this.#timeoutMs, () => {
      throw new DeliveryJournalWriteError(`Redis did not answer within ${this.#timeoutMs} ms`);
    });
  }
}

/** An entry as the stream stores it: text cut as the SQL journals cut it, the body only when asked for. */
function storedEntry(
  entry: JournalEntry,
  recordBodies: boolean,
): JournalEntry & { references: Record<string, string> } {
  const references: Record<string, string> = {};
  for (const name of REFERENCE_FIELDS) {
    const value = storable((entry.references as Record<string, unknown> | undefined)?.[name], COLUMN_CAPS.reference);
    if (value !== undefined) references[name] = value;
  }
  const cut = (value: unknown, cap: number) => storable(value, cap);
  const stored: Record<string, unknown> = {
    at: typeof entry.at === "number" && Number.isFinite(entry.at) ? Math.round(entry.at) : Date.now(),
    source: cut(entry.source, COLUMN_CAPS.source),
    origin: cut(entry.origin, COLUMN_CAPS.origin),
    event: cut(entry.event, COLUMN_CAPS.event),
    state: cut(entry.state, COLUMN_CAPS.state),
    references,
    idempotencyKey: cut(entry.idempotencyKey, COLUMN_CAPS.idempotency_key),
    attempt: Number.isFinite(entry.attempt) ? entry.attempt : undefined,
    httpStatus: Number.isFinite(entry.httpStatus) ? entry.httpStatus : 0,
    outcome: cut(entry.outcome, COLUMN_CAPS.outcome),
    handlerMs: Number.isFinite(entry.handlerMs) ? entry.handlerMs : undefined,
    error: cut(entry.error, COLUMN_CAPS.error),
    instance: cut(entry.instance, COLUMN_CAPS.instance) ?? "",
    body: recordBodies ? cut(entry.body, COLUMN_CAPS.body) : undefined,
  };
  // Absent fields stay undefined: JSON.stringify leaves them out (deleting them would slow every entry down).
  return stored as unknown as JournalEntry & { references: Record<string, string> };
}

function parseEntry(id: string, json: unknown): JournalEntry | undefined {
  if (typeof json !== "string") return undefined;
  try {
    return { ...(JSON.parse(json) as JournalEntry), id };
  } catch {
    return undefined;
  }
}

// Stream ids `ms-seq`: by time, then sequence.
function compareIds(a: string, b: string): number {
  const [aMs = 0, aSeq = 0] = a.split("-").map(Number);
  const [bMs = 0, bSeq = 0] = b.split("-").map(Number);
  return aMs - bMs || aSeq - bSeq;
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`RedisDeliveryJournal: ${name} must be positive`);
  return Math.floor(value);
}
