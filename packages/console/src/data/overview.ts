// What the overview shows: per source, the last 24 hours of deliveries, the last successful webhook, the inbox;
// and the reconciler's latest runs.
import type { WebhookSource } from "@kirimbayar/core/webhooks";
import { type ConsoleConfig, SOURCES } from "../config.js";
import type { JournalReconcileRun, JournalSourceSummary } from "../journal.js";
import { type Settled, settle } from "./settle.js";

/** The window of the per-source counts. */
export const OVERVIEW_WINDOW_MS = 24 * 3_600_000;

/** Inbox counts of one source. */
export interface InboxView {
  readonly waiting: number;
  readonly active: number;
  readonly deadLetters: number;
  readonly oldestWaitingAgeMs: number | undefined;
}

/** One source's card. */
export interface SourceOverview {
  readonly source: WebhookSource;
  /** Undefined when the journal has nothing of it in the window. */
  readonly summary: JournalSourceSummary | undefined;
  /** Undefined when the source has no inbox. */
  readonly inbox: Settled<InboxView> | undefined;
}

/** Everything the overview page shows. */
export interface OverviewData {
  readonly now: number;
  /** False when the journal could not be read. */
  readonly journalRead: boolean;
  readonly sources: readonly SourceOverview[];
  readonly runs: Settled<readonly JournalReconcileRun[]>;
}

/** Whether the journal has anything of a source (journals answer every source, zeros included). */
function seen(summary: JournalSourceSummary | undefined): boolean {
  return summary !== undefined && (summary.deliveries > 0 || summary.lastSuccessAt !== undefined);
}

/** Reads the overview's data; parts that fail are reported and shown as unreadable. */
export async function readOverview(config: ConsoleConfig): Promise<OverviewData> {
  const now = config.clock();
  const [summaries, runs] = await Promise.all([
    settle(() => config.journal.summarize(now - OVERVIEW_WINDOW_MS), "journal.summarize", config.report),
    settle(() => config.journal.reconcileRuns(10), "journal.reconcileRuns", config.report),
  ]);
  const bySource = new Map((summaries.ok ? summaries.value : []).map((summary) => [summary.source, summary]));
  const shown = SOURCES.filter(
    (source) =>
      config.sources?.includes(source) ??
      (seen(bySource.get(source)) || config.stores[source] !== undefined || config.inboxes[source] !== undefined),
  );
  const sources = await Promise.all(
    shown.map(async (source): Promise<SourceOverview> => {
      const inbox = config.inboxes[source];
      return {
        source,
        summary: bySource.get(source),
        inbox:
          inbox === undefined ? undefined : await settle(() => inbox.stats(), `inboxes.${source}.stats`, config.report),
      };
    }),
  );
  return { now, journalRead: summaries.ok, sources, runs };
}
