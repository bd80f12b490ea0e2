// The PostgreSQL dialect of the idempotency store: the text of every statement it sends, and their names. Nothing
// here runs anything: the store (store.ts) and the transactions (pg-transaction.ts, callback-transaction.ts,
// bound-transaction.ts) send them.
import type { Statement } from "./connection.js";
import { quotedTable } from "./schema.js";

/** The store's statements, by what they do. */
export type PostgresStatementName =
  | "claim"
  | "state"
  | "complete"
  | "release"
  | "claimInTransaction"
  | "claimNewInTransaction"
  | "sweep";

/**
 * The store's statements for `table`, each named by its text, and the name of the transactional claim as an SQL-level
 * prepared statement (see `TransactionalClaimStatement`). Throws for a table name that is not one or two plain
 * identifiers.
 */
export function postgresIdempotencyStatements(table: string): {
  readonly statements: Record<PostgresStatementName, Statement>;
  readonly transactionalClaimName: string;
} {
  const t = quotedTable(table);
  const ms = (parameter: string) => `(${parameter}::double precision * interval '1 millisecond')`;
  const texts = {
    // Claimed when the key is new, released, past its retention, or its lease ran out. Takes a batch of
    // {key, owner, ms} as JSON (every driver passes a string); rows are locked in key order, so two batches
    // never wait on each other in a cycle.
    claim: `INSERT INTO ${t} AS t (key, state, owner, attempts, lease_expires_at, expires_at)
SELECT i.key, 'processing', i.owner, 1, now() + ${ms("i.ms")}, now() + ${ms("i.ms")}
FROM json_to_recordset($1::json) AS i(key text, owner text, ms double precision) ORDER BY i.key
ON CONFLICT (key) DO UPDATE SET state = 'processing', owner = EXCLUDED.owner,
  attempts = CASE WHEN t.expires_at <= now() AND t.state = 'completed' THEN 1 ELSE t.attempts + 1 END,
  lease_expires_at = EXCLUDED.lease_expires_at, expires_at = EXCLUDED.expires_at
WHERE t.expires_at <= now() OR t.state = 'released' OR (t.state = 'processing' AND t.lease_expires_at <= now())
RETURNING t.key, t.attempts`,
    // Read only when the claim took nothing (a duplicate): why not.
    state: `SELECT state FROM ${t} WHERE key = $1`,
    // Recorded when this delivery holds the lease, or nobody does any more (expired, released, gone). A batch
    // like the claim's. (A record inserted here keeps the owner: an owner means nothing once completed.)
    complete: `INSERT INTO ${t} AS t (key, state, owner, attempts, expires_at)
SELECT i.key, 'completed', i.owner, 1, now() + ${ms("i.ms")}
FROM json_to_recordset($1::json) AS i(key text, owner text, ms double precision) ORDER BY i.key
ON CONFLICT (key) DO UPDATE SET state = 'completed', owner = NULL, lease_expires_at = NULL,
  expires_at = EXCLUDED.expires_at
WHERE t.owner = EXCLUDED.owner OR t.expires_at <= now() OR t.state = 'released'
  OR (t.state = 'processing' AND t.lease_expires_at <= now())
RETURNING t.key`,
    release: `UPDATE ${t} SET state = 'released', owner = NULL, lease_expires_at = NULL,
  expires_at = now() + ${ms("$3")}
WHERE key = $1 AND owner = $2 AND state = 'processing'
RETURNING 1 AS released`,
    // Inside the delivery's transaction: the record appears (and disappears) with the handlers' writes. The
    // advisory lock (held until the transaction ends) tells a concurrent duplicate at once that another open
    // transaction has the event, instead of letting it wait on the row lock for the whole handler.
    claimInTransaction: `WITH lock AS MATERIALIZED (SELECT pg_try_advisory_xact_lock(hashtextextended($1, 7411)) AS got),
claimed AS (
  INSERT INTO ${t} AS t (key, state, attempts, expires_at)
  SELECT $1, 'completed', 1, now() + ${ms("$2")} FROM lock WHERE lock.got
  ON CONFLICT (key) DO UPDATE SET state = 'completed', owner = NULL, lease_expires_at = NULL,
    attempts = t.attempts + 1, expires_at = EXCLUDED.expires_at
  WHERE t.state <> 'completed' OR t.expires_at <= now()
  RETURNING attempts
)
SELECT (SELECT got FROM lock) AS got, (SELECT attempts FROM claimed) AS attempts`,
    // A transaction opened by a library's binding sends its statements unnamed, so PostgreSQL plans each one on
    // every delivery: this flat insert of a new key costs less to plan and run than the claim above (backend CPU
    // of a delivery's whole transaction 0.32-0.34 against 0.42-0.45 ms unnamed, 0.21-0.25 named; a hand-rolled
    // `INSERT ... ON CONFLICT DO NOTHING` 0.18). No row back (a duplicate, a retry, the lock held elsewhere) and
    // the claim above decides; the advisory lock is re-entrant within a transaction.
    claimNewInTransaction: `INSERT INTO ${t} (key, state, attempts, expires_at)
SELECT $1, 'completed', 1, now() + ${ms("$2")} WHERE pg_try_advisory_xact_lock(hashtextextended($1, 7411))
ON CONFLICT (key) DO NOTHING
RETURNING attempts`,
    sweep: `DELETE FROM ${t} WHERE key IN (SELECT key FROM ${t} WHERE expires_at <= now() LIMIT $1)`,
  };
  const named = (name: keyof typeof texts): Statement => ({
    text: texts[name],
    name: statementName(name, texts[name]),
  });
  return {
    statements: {
      claim: named("claim"),
      state: named("state"),
      complete: named("complete"),
      release: named("release"),
      claimInTransaction: named("claimInTransaction"),
      claimNewInTransaction: named("claimNewInTransaction"),
      sweep: named("sweep"),
    },
    transactionalClaimName: statementName("txclaim", transactionalClaimPrepare(texts.claimInTransaction)),
  };
}

/** The SQL `PREPARE` of the transactional claim under `name` (see `TransactionalClaimStatement`). */
export function transactionalClaimPrepare(text: string, name = "$name"): string {
  return `PREPARE ${name}(text, double precision) AS ${text}`;
}

/**
 * The prepared-statement name of `text`: `kirimbayar_<purpose>_<hash of the text>`. A name stands for one text only,
 * so that two stores (another table), or two versions of this package sharing server connections through a pooler
 * during a rolling deploy, can never run each other's text under one name; and it stays short (PostgreSQL cuts
 * names at 63 bytes).
 */
export function statementName(purpose: string, text: string): string {
  return `kirimbayar_${purpose}_${fnv1a64(text)}`;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = 0xffffffffffffffffn;

/** FNV-1a of the text's UTF-8 bytes, 64 bits as 16 hex digits: run once per statement, when a store is built. */
function fnv1a64(text: string): string {
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * FNV_PRIME) & MASK_64;
  }
  return hash.toString(16).padStart(16, "0");
}
