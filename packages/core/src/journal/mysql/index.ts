export { MysqlDeliveryJournal, type MysqlDeliveryJournalOptions } from "./journal.js";
export { DEFAULT_MYSQL_JOURNAL_TABLE, mysqlJournalSchema } from "./schema.js";
