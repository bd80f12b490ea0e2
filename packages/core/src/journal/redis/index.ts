export { RedisDeliveryJournal, type RedisDeliveryJournalOptions } from "./journal.js";
