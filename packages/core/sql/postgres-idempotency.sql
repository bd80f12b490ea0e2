-- Table of @kirimbayar/core's PostgresIdempotencyStore (default name kirimbayar_idempotency). The same statements
-- as postgresIdempotencySchema() / store.ensureSchema(); copy it into your migrations, renaming the table if you
-- pass another `table` option. A test keeps this file and the code identical.
CREATE TABLE IF NOT EXISTS "kirimbayar_idempotency" (
  key text PRIMARY KEY,
  state text NOT NULL CHECK (state IN ('processing', 'completed', 'released')),
  owner text,
  attempts integer NOT NULL DEFAULT 1,
  lease_expires_at timestamptz,
  expires_at timestamptz NOT NULL
);

CREATE INDEX IF NOT EXISTS "kirimbayar_idempotency_expires_at" ON "kirimbayar_idempotency" (expires_at);
