export { PostgresDeliveryJournal, type PostgresDeliveryJournalOptions } from "./journal.js";
export { DEFAULT_POSTGRES_JOURNAL_TABLE, postgresJournalSchema } from "./schema.js";
