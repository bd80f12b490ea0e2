// The MySQL/MariaDB dialect of the idempotency store: every statement it sends, as text plus positional `?` values.
// Nothing here runs anything: the mysql2 store (store.ts) and any binding that runs statements through another
// library's connection or transaction (an ORM's raw query) send the same statements and read them the same way
// (operations.ts). Only strings and finite integers are bound, and every result is read either as the number of
// affected rows of a write or as the rows of a read, which every MySQL driver and ORM reports.
import { DEFAULT_MYSQL_IDEMPOTENCY_TABLE, quotedMysqlTable } from "./schema.js";

/**
 * One statement: SQL with positional `?` placeholders and its values, in order. `kind` says how its result is read:
 * a `write` by its affected rows (a binding must report them: Prisma's `$executeRaw`, a mysql2 result header), a
 * `read` by its rows.
 */
export interface MysqlStatement {
  readonly sql: string;
  readonly values: readonly (string | number)[];
  readonly kind: "read" | "write";
}

/**
 * The statements of the MySQL idempotency store for one table. Writes are read by their affected rows (each touches
 * at most one row, and always changes the row it matches, so the count is the same whether or not the connection
 * reports found rows); reads by their rows.
 */
export interface MysqlIdempotencyStatements {
  /** Write. Records the key as `processing` for `owner` unless a record exists: 1 row = claimed, attempt 1. */
  claimNew(key: string, owner: string, leaseMs: number): MysqlStatement;
  /**
   * Write. Takes over a record that was released, is past its retention, or whose lease ran out: 1 row = claimed
   * (the attempt is then read with {@link MysqlIdempotencyStatements.read}).
   */
  claimAgain(key: string, owner: string, leaseMs: number): MysqlStatement;
  /** Read. `state`, `owner`, `attempts` of the key's record (no row: none). */
  read(key: string): MysqlStatement;
  /** Write. Completes the record if `owner` holds it or nobody does any more: 1 row = completed. */
  completeHeld(key: string, owner: string, retentionMs: number): MysqlStatement;
  /** Write. Records the key as completed when it has no record at all (`INSERT IGNORE`): 1 row = completed. */
  completeMissing(key: string, owner: string, retentionMs: number): MysqlStatement;
  /** Write. Marks `owner`'s live claim released (its attempt counted): 1 row = released. */
  release(key: string, owner: string, retentionMs: number): MysqlStatement;
  /** Write. Deletes up to `limit` records past their retention (or lease): rows = how many. */
  sweep(limit: number): MysqlStatement;
  /**
   * Write, inside the delivery's transaction. Takes the key's named lock without waiting (`GET_LOCK(name, 0)`) and,
   * holding it, records the key as completed unless a record exists: 1 row = claimed, attempt 1.
   */
  lockAndClaimNew(key: string, retentionMs: number): MysqlStatement;
  /**
   * Write, inside the delivery's transaction. If this session holds the key's lock, turns a record that is not
   * completed (or whose retention ended) into a completed one, counting the attempt: 1 row = claimed.
   */
  claimAgainLocked(key: string, retentionMs: number): MysqlStatement;
  /**
   * Read, inside the delivery's transaction. `got` (1 when this session holds the key's lock), `state`, `attempts`,
   * `expired` (1 when the record's retention or lease ended).
   */
  readLocked(key: string): MysqlStatement;
  /** Read. `state`, `attempts` and `expired` (1 when the record's retention or lease ended) of the key's record. */
  readExpiry(key: string): MysqlStatement;
  /** Frees the key's named lock (after COMMIT or ROLLBACK; a closed connection frees it too). */
  unlock(key: string): MysqlStatement;
  /**
   * MariaDB only. Write, inside the delivery's transaction: records the key as completed unless a record exists,
   * without waiting for any row lock (`SET STATEMENT innodb_lock_wait_timeout = 0 FOR ...`): the uncommitted record
   * of a concurrent delivery fails it at once with error 1205. 1 row = claimed, attempt 1.
   */
  claimNewNoWait(key: string, retentionMs: number): MysqlStatement;
  /**
   * MariaDB only. Write, inside the delivery's transaction, without waiting for row locks: turns a record that is
   * not completed (or whose retention ended) into a completed one, counting the attempt. 1 row = claimed.
   */
  claimAgainNoWait(key: string, retentionMs: number): MysqlStatement;
}

const HASH = "UNHEX(SHA2(?, 256))";
const NOW = "UTC_TIMESTAMP(6)";
const later = `${NOW} + INTERVAL (? * 1000) MICROSECOND`;
/** A record nobody holds any more: released, past its retention, or its lease ran out. */
const FREE = `(expires_at <= ${NOW} OR state = 'released' OR (state = 'processing' AND lease_expires_at <= ${NOW}))`;

/** A lease or retention as whole milliseconds; throws for anything else (the value is bound, never inlined). */
function millis(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) {
    throw new TypeError("MysqlIdempotencyStore: leases and retentions must be finite, non-negative milliseconds");
  }
  return Math.round(ms);
}

/**
 * The name of an event's lock: server-wide, so it names the database and table (two stores never share one), and
 * hashed, since MySQL caps lock names at 64 characters.
 */
function lockName(table: string): string {
  // The table is a checked plain identifier (quotedMysqlTable), safe inside a string literal.
  const scope = table.includes(".") ? `'${table}'` : `COALESCE(DATABASE(), ''), '.${table}'`;
  return `CONCAT('kirimbayar:', LEFT(SHA2(CONCAT(${scope}, ':', ?), 256), 52))`;
}

/**
 * Builds the statements of the MySQL idempotency store for `table` (checked: `name` or `database.name`). Exported for
 * bindings that send them through another library's connection or transaction; see {@link MysqlIdempotencyStatements}.
 *
 * @example
 * const statements = mysqlIdempotencyStatements("webhook_events");
 * const { sql, values } = statements.claimNew("qris:payment.success:1", "owner-1", 60_000);
 */
export function mysqlIdempotencyStatements(
  table: string = DEFAULT_MYSQL_IDEMPOTENCY_TABLE,
): MysqlIdempotencyStatements {
  const t = quotedMysqlTable(table);
  const lock = lockName(table);
  const columns = "(key_hash, `key`, state, owner, attempts, lease_expires_at, expires_at)";
  const text = {
    claimNew: `INSERT IGNORE INTO ${t} ${columns} VALUES (${HASH}, ?, 'processing', ?, 1, ${later}, ${later})`,
    // Assignments run left to right on the updated row: attempts first, while state and expires_at are the old ones.
    claimAgain: `UPDATE ${t} SET
  attempts = IF(state = 'completed', 1, attempts + 1),
  state = 'processing', owner = ?, lease_expires_at = ${later}, expires_at = ${later}
WHERE key_hash = ${HASH} AND ${FREE}`,
    read: `SELECT state, owner, attempts FROM ${t} WHERE key_hash = ${HASH}`,
    completeHeld: `UPDATE ${t} SET state = 'completed', owner = NULL, lease_expires_at = NULL, expires_at = ${later}
WHERE key_hash = ${HASH} AND (owner = ? OR ${FREE})`,
    // An owner means nothing once completed; the inserted record keeps it, as the Postgres store's does.
    completeMissing: `INSERT IGNORE INTO ${t} ${columns} VALUES (${HASH}, ?, 'completed', ?, 1, NULL, ${later})`,
    release: `UPDATE ${t} SET state = 'released', owner = NULL, lease_expires_at = NULL, expires_at = ${later}
WHERE key_hash = ${HASH} AND owner = ? AND state = 'processing'`,
    // The named lock, not InnoDB's row locks, tells a concurrent duplicate that another open transaction has the
    // event: GET_LOCK(name, 0) answers at once, where a row lock would wait innodb_lock_wait_timeout (50 s) for the
    // other delivery's handler. Only the lock holder ever writes the key's row inside a transaction, so the INSERT
    // never waits either. Measured on MariaDB 10.11 (tests/mariadb-server/measure/lock-nowait-vs-get-lock.mjs)
    // against `SELECT ... FOR UPDATE NOWAIT` + INSERT: NOWAIT cannot lock a row that does not exist yet, so two first
    // deliveries of an event both pass it; under READ COMMITTED the second INSERT then waited for the first handler
    // (509 ms of a 500 ms handler), under REPEATABLE READ it ended in a deadlock. GET_LOCK answered the duplicate in
    // 2-20 ms under both; it costs one more statement per delivery (the unlock). On MariaDB the store uses
    // claimNewNoWait instead (below): as fast to answer, and no lock to free.
    lockAndClaimNew: `INSERT IGNORE INTO ${t} ${columns}
SELECT ${HASH}, ?, 'completed', NULL, 1, NULL, ${later} FROM DUAL WHERE GET_LOCK(${lock}, 0) = 1`,
    claimAgainLocked: `UPDATE ${t} SET attempts = attempts + 1, state = 'completed', owner = NULL,
  lease_expires_at = NULL, expires_at = ${later}
WHERE key_hash = ${HASH} AND (state <> 'completed' OR expires_at <= ${NOW}) AND IS_USED_LOCK(${lock}) = CONNECTION_ID()`,
    readLocked: `SELECT COALESCE(IS_USED_LOCK(${lock}) = CONNECTION_ID(), 0) AS got, r.state, r.attempts, r.expired
FROM (SELECT 1) AS one LEFT JOIN (SELECT state, attempts, expires_at <= ${NOW} AS expired FROM ${t}
  WHERE key_hash = ${HASH}) AS r ON TRUE`,
    readExpiry: `SELECT state, attempts, expires_at <= ${NOW} AS expired FROM ${t} WHERE key_hash = ${HASH}`,
    unlock: `DO RELEASE_LOCK(${lock})`,
    // MariaDB's per-statement setting: a row lock held by another transaction fails the statement at once (1205)
    // instead of waiting; the session's own innodb_lock_wait_timeout, which the handlers' statements use, is untouched.
    claimNewNoWait: `SET STATEMENT innodb_lock_wait_timeout = 0 FOR INSERT IGNORE INTO ${t} ${columns}
VALUES (${HASH}, ?, 'completed', NULL, 1, NULL, ${later})`,
    claimAgainNoWait: `SET STATEMENT innodb_lock_wait_timeout = 0 FOR UPDATE ${t} SET attempts = attempts + 1,
  state = 'completed', owner = NULL, lease_expires_at = NULL, expires_at = ${later}
WHERE key_hash = ${HASH} AND (state <> 'completed' OR expires_at <= ${NOW})`,
  };
  const write = (sql: string, values: (string | number)[]): MysqlStatement => ({ sql, values, kind: "write" });
  const read = (sql: string, values: (string | number)[]): MysqlStatement => ({ sql, values, kind: "read" });
  return {
    claimNew: (key, owner, leaseMs) => {
      const ms = millis(leaseMs);
      return write(text.claimNew, [key, key, owner, ms, ms]);
    },
    claimAgain: (key, owner, leaseMs) => {
      const ms = millis(leaseMs);
      return write(text.claimAgain, [owner, ms, ms, key]);
    },
    read: (key) => read(text.read, [key]),
    completeHeld: (key, owner, retentionMs) => write(text.completeHeld, [millis(retentionMs), key, owner]),
    completeMissing: (key, owner, retentionMs) => write(text.completeMissing, [key, key, owner, millis(retentionMs)]),
    release: (key, owner, retentionMs) => write(text.release, [millis(retentionMs), key, owner]),
    sweep: (limit) => {
      if (!Number.isSafeInteger(limit) || limit < 1) {
        throw new TypeError("MysqlIdempotencyStore: deleteExpired(limit) takes a positive integer");
      }
      // Inlined (a checked integer): some servers refuse a bound LIMIT in a prepared statement.
      return write(`DELETE FROM ${t} WHERE expires_at <= ${NOW} LIMIT ${limit}`, []);
    },
    lockAndClaimNew: (key, retentionMs) => write(text.lockAndClaimNew, [key, key, millis(retentionMs), key]),
    claimAgainLocked: (key, retentionMs) => write(text.claimAgainLocked, [millis(retentionMs), key, key]),
    readLocked: (key) => read(text.readLocked, [key, key]),
    readExpiry: (key) => read(text.readExpiry, [key]),
    unlock: (key) => write(text.unlock, [key]),
    claimNewNoWait: (key, retentionMs) => write(text.claimNewNoWait, [key, key, millis(retentionMs)]),
    claimAgainNoWait: (key, retentionMs) => write(text.claimAgainNoWait, [millis(retentionMs), key]),
  };
}
