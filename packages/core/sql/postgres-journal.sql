-- Tables of @kirimbayar/core's PostgresDeliveryJournal (default name kirimbayar_delivery_journal, runs in
-- kirimbayar_delivery_journal_runs). The same statements as postgresJournalSchema() / journal.ensureSchema(); copy it
-- into your migrations, renaming the tables and indexes if you pass another `table` option. A test keeps this file
-- and the code identical.
CREATE TABLE IF NOT EXISTS "kirimbayar_delivery_journal" (
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
);

CREATE INDEX IF NOT EXISTS "kirimbayar_delivery_journal_qris_history_id" ON "kirimbayar_delivery_journal" (qris_history_id, at) WHERE qris_history_id IS NOT NULL;

CREATE INDEX IF NOT EXISTS "kirimbayar_delivery_journal_payment_id" ON "kirimbayar_delivery_journal" (payment_id, at) WHERE payment_id IS NOT NULL;

CREATE INDEX IF NOT EXISTS "kirimbayar_delivery_journal_order_id" ON "kirimbayar_delivery_journal" (order_id, at) WHERE order_id IS NOT NULL;

CREATE INDEX IF NOT EXISTS "kirimbayar_delivery_journal_order_no" ON "kirimbayar_delivery_journal" (order_no, at) WHERE order_no IS NOT NULL;

CREATE INDEX IF NOT EXISTS "kirimbayar_delivery_journal_cnote" ON "kirimbayar_delivery_journal" (cnote, at) WHERE cnote IS NOT NULL;

CREATE INDEX IF NOT EXISTS "kirimbayar_delivery_journal_idempotency_key" ON "kirimbayar_delivery_journal" (idempotency_key, at) WHERE idempotency_key IS NOT NULL;

CREATE INDEX IF NOT EXISTS "kirimbayar_delivery_journal_source_at" ON "kirimbayar_delivery_journal" (source, at);

CREATE INDEX IF NOT EXISTS "kirimbayar_delivery_journal_at" ON "kirimbayar_delivery_journal" (at);

CREATE TABLE IF NOT EXISTS "kirimbayar_delivery_journal_runs" (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  started_at timestamptz NOT NULL,
  finished_at timestamptz NOT NULL,
  reference_count integer NOT NULL,
  outcomes jsonb NOT NULL,
  instance varchar(128) NOT NULL
);

CREATE INDEX IF NOT EXISTS "kirimbayar_delivery_journal_runs_finished_at" ON "kirimbayar_delivery_journal_runs" (finished_at);
