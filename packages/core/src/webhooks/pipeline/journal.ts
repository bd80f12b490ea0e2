// The receiver's side of the delivery journal. Types only: the code that builds and writes entries comes with the
// journal (`journalStage` of `@kirimbayar/core/journal`), so that a receiver without a journal bundles none of it
// and pays one `undefined` check per delivery.
import type { IdempotencyTransaction } from "../../idempotency/types.js";
import type { DeliveryJournal, JournalOrigin, JournalStage } from "../../journal/types.js";
import type { DeliveryContext, ReceivedDelivery } from "../context.js";
import type { WebhookHttpResponse } from "../contract.js";
import type { ReceiverConfig } from "../receiver-config.js";
import type { Outcome } from "./direct.js";
import type { FailureReports } from "./report.js";

/** The receiver's dispatch stage: a verified, parsed event on its way to the inbox or the handlers. */
export type Dispatch = (event: unknown, delivery: ReceivedDelivery) => Outcome;

/**
 * A receiver's journal, built once per receiver by its journal's stage. It sees every delivery at two points only:
 * dispatch (wrapped, so every verified event is journalled with its answer, whatever the origin) and the answer of
 * `handle()` (for the deliveries refused before dispatch). What happens in between it learns from the handlers it
 * wraps (the claim's context, their time and failure) and from the receiver's failure reports.
 */
export interface JournalTap {
  /** `dispatch`, journalling each event that reaches it once it is answered (its `journal` is this tap). */
  watch(dispatch: Dispatch): Dispatch & { readonly journal: JournalTap };
  /**
   * A delivery was answered: journalled here unless it reached dispatch (refused before it, or the receiver failed
   * before it). `rawBody` as the request carried it; `origin` and `attempt` for events applied outside `handle()`.
   */
  done(response: WebhookHttpResponse, rawBody: unknown, origin?: JournalOrigin, attempt?: number): void;
}

/** What the journal keeps of one dispatched event while it runs. */
export interface JournalNote {
  /** The handlers start, with the claim's `context` (again when the transactional stage runs the delivery again). */
  started(context: DeliveryContext): void;
  /**
   * Writes the processed entry through the delivery's open transaction (its `sql`, on the store's connection), before
   * it commits, within `timeoutMs`. Resolves `false` when that write failed or ran out of time (the transaction must
   * then not be committed); `true` at once when the journal writes after the answer instead. Never rejects.
   */
  inTransaction(transaction: IdempotencyTransaction, timeoutMs: number): Promise<boolean>;
}

/** The receiver options a journal's stage reads (the receiver hands it all of them; the stage reads only these). */
export interface JournalOptions {
  readonly journal: DeliveryJournal;
  readonly journalOutsideTransaction?: boolean | undefined;
}

/** The stage as the receiver runs it (the journal only carries it). */
export interface RunnableJournalStage extends JournalStage {
  run(options: JournalOptions, config: ReceiverConfig, reports: FailureReports): JournalTap;
}

/** A delivery as the stages see it when a journal is on. */
export interface NotedDelivery extends ReceivedDelivery {
  /** Its note, once dispatched (set by the journal's stage). */
  journal?: JournalNote | undefined;
  /** Events applied outside `handle()`: the origin and attempt the journal records (an inbox try, a replay). */
  journalAs?: { readonly origin: JournalOrigin; readonly attempt: number | undefined } | undefined;
}
