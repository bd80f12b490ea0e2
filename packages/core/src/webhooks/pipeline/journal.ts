// The receiver's side of the delivery journal: what the stages tell a delivery's note. Types only: the code that
// builds and writes entries comes with the journal (`journalStage` of `@kirimbayar/core/journal`), so that a receiver
// without a journal bundles none of it and pays one `undefined` check per hook.
import type { DeliveryJournal, JournalOrigin, JournalStage } from "../../journal/types.js";
import type { DeliveryContext, ReceivedDelivery } from "../context.js";
import type { WebhookHttpResponse } from "../contract.js";
import type { ReceiverConfig } from "../receiver-config.js";
import type { FailureReports } from "./report.js";

/** What the journal learns of one delivery as it goes through the stages. */
export interface JournalNote {
  /** The error a stage reported for this delivery (`FailureReports.report` fills it, as it fills applyEvent's slot). */
  error?: unknown;
  /** The delivery's body is read (webhooks only): links the note and the delivery. */
  read(delivery: ReceivedDelivery): void;
  /** The verified event reached dispatch. */
  saw(event: unknown): void;
  /** Called when the event is claimed (the handlers are about to run), and again when the handlers settled. */
  ran(context: DeliveryContext): void;
  /**
   * Writes the processed entry through the delivery's open transaction, before it commits, within `timeoutMs`.
   * Resolves `false` when that write failed or ran out of time (the transaction must then not be committed); never
   * rejects.
   */
  inTransaction(transaction: unknown, timeoutMs: number): Promise<boolean>;
  /** The delivery was answered: the entry is recorded (unless written in the transaction), never awaited. */
  answered(response: WebhookHttpResponse): void;
}

/** A receiver's journal, built once per receiver by its journal's stage. */
export interface JournalTap {
  /** A note for one delivery (`attempt`: the inbox's try, when known). */
  open(origin: JournalOrigin, attempt?: number): JournalNote;
}

/** The stage as the receiver runs it (the journal only carries it). */
export interface RunnableJournalStage extends JournalStage {
  run(journal: DeliveryJournal, config: ReceiverConfig, reports: FailureReports): JournalTap;
}

/** A delivery as the stages see it when a journal is on: it carries its note. */
export interface NotedDelivery extends ReceivedDelivery {
  note?: JournalNote;
}
