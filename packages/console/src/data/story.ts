// The timeline's findings in words a person on call reads first: what happened to each event, in one sentence
// each ("applied by reconciliation: its webhook never arrived").
import type { JournalEntry, JournalOrigin, JournalOutcome } from "../journal.js";

/** How an outcome reads in one entry of the timeline. */
export const OUTCOME_LABELS: Readonly<Record<JournalOutcome, string>> = {
  processed: "processed",
  duplicate: "duplicate, ignored",
  in_progress: "busy: another delivery held it",
  queued: "queued in the inbox",
  not_handled: "no handler listens to it",
  refused: "refused before any handler",
  failed: "failed",
};

/** How an origin reads. */
export const ORIGIN_LABELS: Readonly<Record<JournalOrigin, string>> = {
  webhook: "webhook delivery",
  reconciliation: "reconciliation",
  inbox: "inbox worker",
  replay: "replay of a dead letter",
};

/** What an HTTP refusal usually means, for the people reading it. */
function refusalHint(status: number): string {
  if (status === 401) return "the signature or token did not verify: check the webhook secret the app uses";
  if (status === 400) return "the body could not be read as the event";
  if (status === 413) return "the body was too large";
  if (status === 415) return "the content type was not accepted";
  if (status === 405) return "the method was not POST";
  if (status === 408) return "the body arrived too slowly";
  return `answered ${status}`;
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** One event's entries (same source and key), newest first, told in sentences; `dead`: it is a dead letter now. */
function eventStory(entries: readonly JournalEntry[], dead: boolean): string[] {
  const sentences: string[] = [];
  const oldestFirst = [...entries].reverse();
  const deliveries = oldestFirst.filter((entry) => entry.origin === "webhook");
  const failedDeliveries = deliveries.filter((entry) => entry.outcome === "failed");
  const done = oldestFirst.find((entry) => entry.outcome === "processed");
  const name = entries.find((entry) => entry.event !== undefined)?.event;
  const what = name === undefined ? "The event" : `The ${name} event`;
  if (done !== undefined) {
    const failedBefore = oldestFirst.filter((entry) => entry.outcome === "failed" && entry.at <= done.at).length;
    const after = failedBefore > 0 ? ` after ${plural(failedBefore, "failed try", "failed tries")}` : "";
    if (done.origin === "reconciliation") {
      sentences.push(
        deliveries.length === 0
          ? `${what} was applied by reconciliation: its webhook never arrived.`
          : `${what} was applied by reconciliation${after}: none of its ${plural(deliveries.length, "webhook delivery", "webhook deliveries")} got through.`,
      );
    } else if (done.origin === "replay") {
      sentences.push(`${what} was processed after its dead letter was replayed${after}.`);
    } else if (done.origin === "inbox") {
      sentences.push(
        `${what} was processed by the inbox worker${done.attempt === undefined ? "" : ` on try ${done.attempt}`}${after}.`,
      );
    } else {
      sentences.push(
        `${what} was processed by a webhook delivery${done.attempt === undefined ? "" : ` (attempt ${done.attempt})`}${after}.`,
      );
    }
  } else {
    const last = entries[0];
    if (last?.outcome === "queued") sentences.push(`${what} is queued in the inbox and not processed yet.`);
    else if (last?.outcome === "not_handled") sentences.push(`${what} arrived, but no handler listens to it.`);
    else if (last?.outcome === "in_progress") sentences.push(`${what} is being handled by another delivery.`);
    else if (last?.outcome === "refused") {
      sentences.push(
        `${what} is not processed: every delivery was refused before any handler (${refusalHint(last.httpStatus)}).`,
      );
    } else if (failedDeliveries.length > 0 || last?.outcome === "failed") {
      const failures = oldestFirst.filter((entry) => entry.outcome === "failed").length;
      sentences.push(
        `${what} is not processed yet: ${plural(failures, "try", "tries")} failed, the last one answered ${last?.httpStatus ?? "?"}.`,
      );
    } else if (last?.outcome === "duplicate") {
      sentences.push(`${what} was processed before this journal's oldest entry; later deliveries were duplicates.`);
    }
  }
  if (dead && done === undefined) {
    sentences.push("It ran out of tries and is a dead letter of the inbox: fix the cause, then replay it.");
  }
  const duplicates = entries.filter((entry) => entry.outcome === "duplicate").length;
  if (duplicates > 0) {
    sentences.push(
      `${plural(duplicates, "duplicate delivery was", "duplicate deliveries were")} ignored (answered 200, nothing ran twice).`,
    );
  }
  const busy = entries.filter((entry) => entry.outcome === "in_progress").length;
  if (busy > 0 && done !== undefined) {
    sentences.push(
      `${plural(busy, "delivery", "deliveries")} arrived while another held the event (answered 409, retried later).`,
    );
  }
  return sentences;
}

/**
 * The findings of a whole timeline (entries newest first), one group of sentences per event. `deadLetters`: the
 * events (`source + "\n" + key`) that are dead letters now.
 */
export function storyOf(entries: readonly JournalEntry[], deadLetters: ReadonlySet<string> = new Set()): string[] {
  const groups = new Map<string, JournalEntry[]>();
  for (const entry of entries) {
    // Refusals before parsing have no key: they are their own group.
    const id = entry.idempotencyKey === undefined ? "refused" : `${entry.source}\n${entry.idempotencyKey}`;
    const group = groups.get(id) ?? [];
    group.push(entry);
    groups.set(id, group);
  }
  return [...groups.entries()].flatMap(([id, group]) => eventStory(group, deadLetters.has(id)));
}
