/** Default table of {@link PostgresDeliveryJournal}. */
export const DEFAULT_POSTGRES_JOURNAL_TABLE = "kirimbayar_delivery_journal";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The double-quoted table name; throws for anything but one or two plain identifiers. */
export function quotedJournalTable(table: string): string {
  const parts = table.split(".");
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new TypeError(`PostgresDeliveryJournal: table must be "name" or "schema.name" of letters, digits and _`);
  }
  return parts.map((part) => `"${part}"`).join(".");
}

/** The reconcile-runs table beside a journal table: `<table>_runs`. */
export function runsTableOf(table: string): string {
  return `${table}_runs`;
}

/**
 * The schema of the journal's two tables, as statements (the same SQL as `sql/postgres-journal.sql` in this
 * package, for your migration tool): the entries (one row per delivery, indexed by each reference, by idempotency
 * key, by source and time, and by time for retention) and the reconciler's runs (`<table>_runs`).
 *
 * @example
 * for (const statement of postgresJournalSchema()) await pool.query(statement);
 */
export function postgresJournalSchema(table: string = DEFAULT_POSTGRES_JOURNAL_TABLE): string[] {
  const name = quotedJournalTable(table);
  const runs = quotedJournalTable(runsTableOf(table));
  const bare = table.replace(".", "_");
  const index = (suffix: string, columns: string, where = "") =>
    `CREATE INDEX IF NOT EXISTS "${bare}_${suffix}" ON ${name} (${columns})${where}`;
  const byColumn = (column: string) => index(column, `${column}, at`, ` WHERE ${column} IS NOT NULL`);
  return [
    `CREATE TABLE IF NOT EXISTS ${name} (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL,
  source varchar(32) NOT NULL,
  origin varchar(16) NOT NULL,
  event varchar(64),
  state varchar(64),
  qris_history_id varchar(191),
  payment_id varchar(191),
  order_id varchar(191),
  order_no varchar(191),
  cnote varchar(191),
  idempotency_key varchar(512),
  attempt integer,
  http_status smallint NOT NULL,
  outcome varchar(16) NOT NULL,
  handler_ms double precision,
  error varchar(500),
  instance varchar(128) NOT NULL,
  body text
)`,
    byColumn("qris_history_id"),
    byColumn("payment_id"),
    byColumn("order_id"),
    byColumn("order_no"),
    byColumn("cnote"),
    byColumn("idempotency_key"),
    index("source_at", "source, at"),
    index("at", "at"),
    `CREATE TABLE IF NOT EXISTS ${runs} (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  started_at timestamptz NOT NULL,
  finished_at timestamptz NOT NULL,
  reference_count integer NOT NULL,
  outcomes jsonb NOT NULL,
  instance varchar(128) NOT NULL
)`,
    `CREATE INDEX IF NOT EXISTS "${bare}_runs_finished_at" ON ${runs} (finished_at)`,
  ];
}
