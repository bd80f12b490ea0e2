// The delivery journal's public types, from core: the console reads what receivers write. One place to import them.
export type {
  DeliveryJournal,
  IdempotencyRecordView,
  JournalEntry,
  JournalOrigin,
  JournalOutcome,
  JournalReconcileRun,
  JournalReferences,
  JournalSourceSummary,
} from "@kirimbayar/core/journal";
