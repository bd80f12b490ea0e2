// The columns every SQL journal stores, their length caps, and the mapping between a JournalEntry and a row. One
// place, so the Postgres and MySQL journals (and their schemas) cap and read the same way.
import type {
  JournalEntry,
  JournalOrigin,
  JournalOutcome,
  JournalQuery,
  JournalReconcileRun,
  JournalReferences,
  JournalSourceSummary,
} from "../types.js";

/** The references, in column order (wire names: they are the columns' names too). */
export const REFERENCE_FIELDS = ["qris_history_id", "payment_id", "order_id", "order_no", "cnote"] as const;

/** Characters kept of each text column; longer values are cut (whole code points). */
export const COLUMN_CAPS = {
  source: 32,
  origin: 16,
  event: 64,
  state: 64,
  reference: 191,
  idempotency_key: 512,
  outcome: 16,
  error: 500,
  instance: 128,
  body: 65_536,
} as const;

/** Default retention of the journals: 7 days. */
export const DEFAULT_JOURNAL_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

const OUTCOMES: ReadonlySet<string> = new Set<JournalOutcome>([
  "processed",
  "duplicate",
  "in_progress",
  "queued",
  "not_handled",
  "refused",
  "failed",
]);

/**
 * Untrusted text cut to `cap` code points (never half of a surrogate pair). `undefined` stays `undefined`.
 */
export function storable(value: unknown, cap: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = String(value);
  if (text.length <= cap) return text;
  let end = cap;
  // Cut before a high surrogate whose low half would be lost.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  const cut = text.slice(0, end);
  // Characters outside the BMP count as one in the database but two here: cut by code points when there are any.
  return /[\uD800-\uDFFF]/.test(cut) ? Array.from(text).slice(0, cap).join("") : cut;
}

/** How a journal's text columns hold untrusted text: cut to the column, and read back as it was given. */
export interface TextCodec {
  store(value: unknown, cap: number): string | undefined;
  read(text: string): string;
}

/** Text stored as it is (MySQL, Redis), only cut. */
export const PLAIN_TEXT: TextCodec = { store: storable, read: (text) => text };

const ESCAPE = "\uFFFE";
const NUL = String.fromCharCode(0);

/**
 * PostgreSQL's text refuses NUL: NUL is stored as U+FFFE "0", and U+FFFE (a noncharacter) doubled, so the text reads
 * back exactly and a search escapes the same way. Text with neither (all real text) is stored as it is.
 */
export const NUL_ESCAPED_TEXT: TextCodec = {
  store(value, cap) {
    const text = storable(value, cap);
    if (text === undefined || !(text.includes(NUL) || text.includes(ESCAPE))) return text;
    // Escaping lengthens: cut the original further until its escaped form fits (never splitting an escape).
    for (let limit = cap, round = 0; limit > 0 && round < 8; round++) {
      const escaped = (storable(text, limit) as string)
        .replaceAll(ESCAPE, `${ESCAPE}${ESCAPE}`)
        .replaceAll(NUL, `${ESCAPE}0`);
      if (escaped.length <= cap) return escaped;
      limit -= escaped.length - cap;
    }
    return "";
  },
  read(text) {
    if (!text.includes(ESCAPE)) return text;
    return text.replace(/\uFFFE([0\uFFFE])/g, (_, c: string) => (c === "0" ? NUL : ESCAPE));
  },
};

/** One entry as the row an SQL journal inserts (column name → value; `null` for absent). */
export interface JournalRow {
  readonly at: number;
  readonly source: string;
  readonly origin: string;
  readonly event: string | null;
  readonly state: string | null;
  readonly qris_history_id: string | null;
  readonly payment_id: string | null;
  readonly order_id: string | null;
  readonly order_no: string | null;
  readonly cnote: string | null;
  readonly idempotency_key: string | null;
  readonly attempt: number | null;
  readonly http_status: number;
  readonly outcome: string;
  readonly handler_ms: number | null;
  readonly error: string | null;
  readonly instance: string;
  readonly body: string | null;
}

/** The columns of {@link JournalRow}, in insert order. */
export const JOURNAL_COLUMNS = [
  "at",
  "source",
  "origin",
  "event",
  "state",
  ...REFERENCE_FIELDS,
  "idempotency_key",
  "attempt",
  "http_status",
  "outcome",
  "handler_ms",
  "error",
  "instance",
  "body",
] as const satisfies readonly (keyof JournalRow)[];

const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

function integerOrNull(value: unknown, min: number, max: number): number | null {
  if (typeof value !== "number" || !Number.isFinite(value)) return null;
  return Math.min(max, Math.max(min, Math.round(value)));
}

/** An entry as its row: every text capped (through `codec`), numbers made finite; the body only when `recordBodies`. */
export function rowOf(entry: JournalEntry, recordBodies: boolean, codec: TextCodec = PLAIN_TEXT): JournalRow {
  const storable = codec.store;
  const references = (entry.references ?? {}) as Record<string, unknown>;
  const reference = (name: (typeof REFERENCE_FIELDS)[number]) =>
    orNull(storable(references[name], COLUMN_CAPS.reference));
  const at = typeof entry.at === "number" && Number.isFinite(entry.at) ? Math.round(entry.at) : Date.now();
  const handlerMs = typeof entry.handlerMs === "number" && Number.isFinite(entry.handlerMs) ? entry.handlerMs : null;
  return {
    at,
    source: storable(entry.source, COLUMN_CAPS.source) ?? "",
    origin: storable(entry.origin, COLUMN_CAPS.origin) ?? "webhook",
    event: orNull(storable(entry.event, COLUMN_CAPS.event)),
    state: orNull(storable(entry.state, COLUMN_CAPS.state)),
    qris_history_id: reference("qris_history_id"),
    payment_id: reference("payment_id"),
    order_id: reference("order_id"),
    order_no: reference("order_no"),
    cnote: reference("cnote"),
    idempotency_key: orNull(storable(entry.idempotencyKey, COLUMN_CAPS.idempotency_key)),
    attempt: integerOrNull(entry.attempt, 0, 2_147_483_647),
    http_status: integerOrNull(entry.httpStatus, 0, 999) ?? 0,
    outcome: storable(entry.outcome, COLUMN_CAPS.outcome) ?? "failed",
    handler_ms: handlerMs === null ? null : Math.max(0, handlerMs),
    error: orNull(storable(entry.error, COLUMN_CAPS.error)),
    instance: storable(entry.instance, COLUMN_CAPS.instance) ?? "",
    body: recordBodies ? orNull(storable(entry.body, COLUMN_CAPS.body)) : null,
  };
}

const textOf = (value: unknown, codec: TextCodec): string | undefined =>
  value === null || value === undefined ? undefined : codec.read(String(value));
const number = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : Number(value);

/** A row read back (`at_ms` the time as epoch ms) as an entry; absent columns stay absent. */
export function entryOf(row: Record<string, unknown>, codec: TextCodec = PLAIN_TEXT): JournalEntry {
  const text = (value: unknown) => textOf(value, codec);
  const references: Record<string, string> = {};
  for (const name of REFERENCE_FIELDS) {
    const value = text(row[name]);
    if (value !== undefined) references[name] = value;
  }
  const entry: Record<string, unknown> = {
    id: String(row.id),
    at: Math.round(Number(row.at_ms)),
    source: String(row.source),
    origin: String(row.origin) as JournalOrigin,
    event: text(row.event),
    state: text(row.state),
    references: references as JournalReferences,
    idempotencyKey: text(row.idempotency_key),
    attempt: number(row.attempt),
    httpStatus: Number(row.http_status),
    outcome: String(row.outcome) as JournalOutcome,
    handlerMs: number(row.handler_ms),
    error: text(row.error),
    instance: text(row.instance) ?? "",
    body: text(row.body),
  };
  for (const key of Object.keys(entry)) if (entry[key] === undefined) delete entry[key];
  return entry as unknown as JournalEntry;
}

/** A search with its bounds checked: the reference cut as stored, the limit within 1..1,000. */
export interface NormalizedQuery {
  /** Cut as the reference columns store it. */
  readonly reference: string | undefined;
  /** The same text cut as the idempotency-key column stores it. */
  readonly key: string | undefined;
  readonly source: string | undefined;
  readonly since: number | undefined;
  readonly before: number | undefined;
  readonly outcomes: readonly JournalOutcome[] | undefined;
  readonly limit: number;
}

/** {@link NormalizedQuery} of `query`; unknown outcomes are ignored (they match nothing). */
export function normalizeQuery(query: JournalQuery = {}, codec: TextCodec = PLAIN_TEXT): NormalizedQuery {
  const storable = codec.store;
  const rawLimit = query.limit ?? 100;
  const limit = Number.isFinite(rawLimit) ? Math.min(1_000, Math.max(1, Math.floor(rawLimit))) : 100;
  const finite = (value: number | undefined) =>
    typeof value === "number" && Number.isFinite(value) ? value : undefined;
  // A reference longer than any column was stored cut: the cut value finds it.
  const given = query.reference === undefined || query.reference === "" ? undefined : query.reference;
  return {
    reference: storable(given, COLUMN_CAPS.reference),
    key: storable(given, COLUMN_CAPS.idempotency_key),
    source: query.source === undefined ? undefined : storable(query.source, COLUMN_CAPS.source),
    since: finite(query.since),
    before: finite(query.before),
    outcomes: query.outcomes === undefined ? undefined : query.outcomes.filter((outcome) => OUTCOMES.has(outcome)),
    limit,
  };
}

/** A reconcile run's outcome counts as stored (JSON of finite counts). */
export function outcomesJson(run: JournalReconcileRun): string {
  const counts: Record<string, number> = {};
  for (const [name, count] of Object.entries(run.outcomes ?? {})) {
    if (typeof count === "number" && Number.isFinite(count))
      counts[(storable(name, 64) as string).replaceAll(NUL, "")] = count;
  }
  return JSON.stringify(counts);
}

/** A reconcile-run row read back (`started_ms`, `finished_ms` epoch ms) as a run. */
export function reconcileRunOf(row: Record<string, unknown>): JournalReconcileRun {
  const outcomes = typeof row.outcomes === "string" ? JSON.parse(row.outcomes) : (row.outcomes ?? {});
  return {
    id: String(row.id),
    startedAt: Math.round(Number(row.started_ms)),
    finishedAt: Math.round(Number(row.finished_ms)),
    references: Number(row.reference_count),
    outcomes: outcomes as Record<string, number>,
    instance: String(row.instance),
  };
}

/** The sources a summary looks for a last success of (`WebhookSource`, kept here so a journal loads no receiver). */
export const JOURNAL_SOURCES = ["qris", "payment", "orders"] as const;

/** How a summary's counts are split (HTTP statuses, as {@link JournalSourceSummary} defines them). */
export const isFailure = (status: number) => status >= 500;
export const isRefused = (status: number) => status >= 400 && status < 500 && status !== 409;
export const isWebhookSuccess = (origin: string, status: number) =>
  origin === "webhook" && status >= 200 && status < 300;

/**
 * One summary per source, in {@link JOURNAL_SOURCES} order, zeros included, from count rows (`source`, `deliveries`,
 * `failures`, `refused`, `duplicates`) and last-success rows (`source`, `last_ms`).
 */
export function summariesOf(
  counts: readonly Record<string, unknown>[],
  lastSuccesses: readonly Record<string, unknown>[],
): JournalSourceSummary[] {
  const countsOf = new Map(counts.map((row) => [String(row.source), row]));
  const lastOf = new Map(lastSuccesses.map((row) => [String(row.source), row.last_ms]));
  return JOURNAL_SOURCES.map((source) => {
    const row = countsOf.get(source);
    const last = lastOf.get(source);
    return {
      source,
      deliveries: Number(row?.deliveries ?? 0),
      failures: Number(row?.failures ?? 0),
      refused: Number(row?.refused ?? 0),
      duplicates: Number(row?.duplicates ?? 0),
      lastSuccessAt: last === null || last === undefined ? undefined : Math.round(Number(last)),
    };
  });
}
