// Entry point of `@kirimbayar/core/journal`: the delivery journal (opt-in, `createWebhookReceiver({ journal })`),
// its in-memory store, the stage every journal carries, and the redaction helpers journals share. Its own entry, so
// that a receiver without a journal bundles none of it.
export { journalOutcomeOf, MAX_REFERENCE_LENGTH, referencesOf, stateOf } from "./journal/entry.js";
export { defaultJournalInstance } from "./journal/instance.js";
export {
  DEFAULT_JOURNAL_MAX_ENTRIES,
  DEFAULT_JOURNAL_RETENTION_MS,
  DEFAULT_JOURNAL_SEARCH_LIMIT,
  MAX_JOURNAL_SEARCH_LIMIT,
  MemoryDeliveryJournal,
  type MemoryDeliveryJournalOptions,
} from "./journal/memory/index.js";
export {
  MAX_ERROR_SUMMARY,
  MIN_SECRET_FRAGMENT,
  redactBody,
  redactText,
  type SecretMask,
  secretRedactor,
  summarizeError,
} from "./journal/redact.js";
export { journalStage } from "./journal/stage.js";
export type {
  DeliveryJournal,
  IdempotencyRecordView,
  JournalEntry,
  JournalOrigin,
  JournalOutcome,
  JournalQuery,
  JournalReconcileRun,
  JournalReferences,
  JournalSourceSummary,
  JournalStage,
} from "./journal/types.js";
