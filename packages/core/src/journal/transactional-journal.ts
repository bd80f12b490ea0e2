// Whether a receiver's journal takes part in its transactional deliveries, decided once, when the receiver is built.
// A transactional delivery's entry is meant to commit with the effect; a journal that cannot write in the store's
// transaction (memory, Redis, another database's SQL) would write it on its own, after the fact. Refused by name here
// rather than discovered in a database's log.
import type { TransactionalIdempotencyStore, TransactionDialect } from "../idempotency/types.js";
import { WebhookConfigurationError } from "../webhooks/errors.js";
import type { ReceiverConfig } from "../webhooks/receiver-config.js";
import type { DeliveryJournal } from "./types.js";

// Each database's journal and store, to name what to pass instead.
const SQL_JOURNALS: Record<TransactionDialect, { journal: string; database: string; entry: string }> = {
  postgres: { journal: "PostgresDeliveryJournal", database: "PostgreSQL", entry: "@kirimbayar/core/postgres" },
  mysql: { journal: "MysqlDeliveryJournal", database: "MySQL", entry: "@kirimbayar/core/mysql" },
};

const OPT_OUT = "or journalOutsideTransaction: true to accept entries written after the answer";

/**
 * `true` when the journal writes each transactional delivery's processed entry in the delivery's own transaction
 * (an SQL journal of the store's database, through `IdempotencyTransaction.sql`); `false` when the receiver is not
 * transactional, or `outsideTransaction` (the receiver's `journalOutsideTransaction`) lets the entries be written
 * after the answer.
 *
 * @throws WebhookConfigurationError for a transactional receiver whose journal cannot write in its store's
 * transactions, naming the journal to pass instead.
 */
export function writesInTransaction(
  journal: DeliveryJournal,
  config: ReceiverConfig,
  outsideTransaction: boolean,
): boolean {
  if (config.transactional === undefined) return false;
  const storeDialect = (config.settings.store as Partial<TransactionalIdempotencyStore>).dialect;
  const journalDialect = journal.dialect;
  const sqlJournal = typeof journal.recordInTransaction === "function" && journalDialect !== undefined;
  if (sqlJournal && storeDialect !== undefined && journalDialect === storeDialect) return true;
  if (outsideTransaction) return false;
  const receiver = `createWebhookReceiver(${config.source})`;
  const expected = storeDialect === undefined ? undefined : SQL_JOURNALS[storeDialect];
  const instead =
    expected === undefined
      ? "the SQL journal of the store's database"
      : `${expected.journal} of "${expected.entry}" (given any pool, connection or binding to the same database: ` +
        "the entry goes through the delivery's transaction)";
  if (!sqlJournal) {
    throw new WebhookConfigurationError(
      `${receiver}: with idempotency.transactional, a delivery's journal entry is written in the delivery's ` +
        `transaction so that it commits with the effect, but this journal (kind "${journal.kind}") never writes in ` +
        "a transaction (memory and Redis journals never do): its entries would be written after the answer, and lost " +
        `if the process stopped in between. Pass ${instead}, ${OPT_OUT}.`,
    );
  }
  const written = SQL_JOURNALS[journalDialect as TransactionDialect]?.database ?? String(journalDialect);
  if (expected === undefined) {
    throw new WebhookConfigurationError(
      `${receiver}: the journal writes ${written} statements, but the idempotency store does not say which ` +
        "database its transactions are on (a store of your own sets `dialect` and gives each transaction `sql`), " +
        `so the entry cannot go in with the effect. Give the store a dialect, ${OPT_OUT}.`,
    );
  }
  throw new WebhookConfigurationError(
    `${receiver}: the journal writes ${written} statements, but the idempotency store's transactions are on ` +
      `${expected.database}, so its entry could never commit with the effect. Pass ${instead}, ${OPT_OUT}.`,
  );
}
