// What the search page shows for one reference: every journal entry (newest first), the current idempotency
// record of each event's key, and the dead letters of those keys or that reference.
import type { WebhookSource } from "@kirimbayar/core/webhooks";
import { type ConsoleConfig, SOURCES } from "../config.js";
import type { IdempotencyRecordView, JournalEntry } from "../journal.js";
import type { ConsoleDeadLetter } from "../options.js";
import { mentions, summarizeBody } from "./body-references.js";
import { type Settled, settle } from "./settle.js";

/** At most this many entries per search. */
export const TIMELINE_LIMIT = 200;
/** Dead letters looked through per inbox. */
const DEAD_LETTER_SCAN = 500;

/** One event (source + idempotency key) of the timeline and its current record in the store. */
export interface EventRecord {
  readonly source: WebhookSource;
  readonly key: string;
  /**
   * `"no-store"`: no store of that source was given to the console; `"no-inspect"`: its store cannot show records;
   * `{ ok: true, value: undefined }`: the store holds no record of the key.
   */
  readonly record: Settled<IdempotencyRecordView | undefined> | "no-store" | "no-inspect";
}

/** Everything the search page shows for `reference`. */
export interface TimelineData {
  readonly now: number;
  readonly reference: string;
  readonly entries: Settled<readonly JournalEntry[]>;
  readonly records: readonly EventRecord[];
  readonly deadLetters: readonly { readonly source: WebhookSource; readonly letter: ConsoleDeadLetter }[];
  /** Inboxes whose dead letters could not be read. */
  readonly unreadInboxes: readonly WebhookSource[];
}

type Inspectable = {
  inspect(key: string): IdempotencyRecordView | undefined | PromiseLike<IdempotencyRecordView | undefined>;
};

function inspectorOf(store: object | undefined): Inspectable | undefined {
  return typeof (store as Partial<Inspectable> | undefined)?.inspect === "function"
    ? (store as Inspectable)
    : undefined;
}

/** The distinct events of `entries`, newest first. */
function eventsOf(entries: readonly JournalEntry[]): { source: WebhookSource; key: string }[] {
  const seen = new Map<string, { source: WebhookSource; key: string }>();
  for (const entry of entries) {
    if (entry.idempotencyKey === undefined) continue;
    const id = `${entry.source}\n${entry.idempotencyKey}`;
    if (!seen.has(id)) seen.set(id, { source: entry.source, key: entry.idempotencyKey });
  }
  return [...seen.values()];
}

/** Reads the timeline of `reference`; parts that fail are reported and shown as unreadable. */
export async function readTimeline(config: ConsoleConfig, reference: string): Promise<TimelineData> {
  const now = config.clock();
  const entries = await settle(
    () => config.journal.search({ reference, limit: TIMELINE_LIMIT }),
    "journal.search",
    config.report,
  );
  const events = eventsOf(entries.ok ? entries.value : []);
  const records = await Promise.all(
    events.map(async ({ source, key }): Promise<EventRecord> => {
      const given = config.stores[source];
      const store = inspectorOf(given);
      const record =
        given === undefined
          ? ("no-store" as const)
          : store === undefined
            ? ("no-inspect" as const)
            : await settle(() => store.inspect(key), `stores.${source}.inspect`, config.report);
      return { source, key, record };
    }),
  );
  const keys = new Set(events.map((event) => `${event.source}\n${event.key}`));
  const deadLetters: TimelineData["deadLetters"][number][] = [];
  const unreadInboxes: WebhookSource[] = [];
  for (const source of SOURCES) {
    const inbox = config.inboxes[source];
    if (inbox === undefined) continue;
    const letters = await settle(
      () => inbox.listDeadLetters({ limit: DEAD_LETTER_SCAN }),
      `inboxes.${source}.listDeadLetters`,
      config.report,
    );
    if (!letters.ok) {
      unreadInboxes.push(source);
      continue;
    }
    for (const letter of letters.value) {
      const ofKey = keys.has(`${source}\n${letter.message.key}`) || letter.message.key === reference;
      if (ofKey || mentions(summarizeBody(letter.message.body).references, reference)) {
        deadLetters.push({ source, letter });
      }
    }
  }
  return { now, reference, entries, records, deadLetters, unreadInboxes };
}
