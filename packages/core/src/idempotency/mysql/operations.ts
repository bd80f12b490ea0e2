// The store's operations as sequences of statements (sql.ts), run through whatever executes them: the mysql2 store
// (store.ts), or a binding over another library's connection or transaction. Each write is one atomic statement;
// a claim that finds a record reads it afterwards, and only reports `claimed` while this owner still holds it.
import type { ClaimResult } from "../types.js";
import type { MysqlIdempotencyStatements, MysqlStatement } from "./sql.js";

/** What running a statement tells: the affected rows of a write, the rows of a read. */
export interface MysqlStatementResult {
  /** Rows a write changed; `undefined` where the driver does not tell (then no write can be judged: an error). */
  readonly affectedRows?: number | undefined;
  readonly rows: readonly Record<string, unknown>[];
}

/** Runs one statement and reports its result; rejects when the database does not answer. */
export type MysqlRun = (statement: MysqlStatement) => PromiseLike<MysqlStatementResult>;

/** Whether a write changed its one row. */
async function changed(run: MysqlRun, statement: MysqlStatement): Promise<boolean> {
  const { affectedRows } = await run(statement);
  if (typeof affectedRows !== "number") {
    throw new TypeError("the database library reported no affected-row count for a write of the MySQL store");
  }
  return affectedRows === 1;
}

/** Claims `key` for `owner` (see `IdempotencyStore.claim`): 1 statement for a new key, 3 for one seen before. */
export async function claimWith(
  run: MysqlRun,
  statements: MysqlIdempotencyStatements,
  key: string,
  owner: string,
  leaseMs: number,
): Promise<ClaimResult> {
  if (await changed(run, statements.claimNew(key, owner, leaseMs))) return { state: "claimed", attempt: 1 };
  const tookOver = await changed(run, statements.claimAgain(key, owner, leaseMs));
  const row = (await run(statements.read(key))).rows[0];
  // Another delivery may take over between the two statements only if this lease already ran out: then not ours.
  if (tookOver && row?.state === "processing" && row.owner === owner) {
    return { state: "claimed", attempt: Number(row.attempts) };
  }
  // A duplicate: completed, or held by a live lease (also when the record is gone again by now).
  return row?.state === "completed" ? { state: "completed" } : { state: "in_progress" };
}

/** Completes `key` if `owner` holds it, or nobody does (see `IdempotencyStore.complete`). */
export async function completeWith(
  run: MysqlRun,
  statements: MysqlIdempotencyStatements,
  key: string,
  owner: string,
  retentionMs: number,
): Promise<boolean> {
  if (await changed(run, statements.completeHeld(key, owner, retentionMs))) return true;
  // No record it could complete: there is none at all (swept, never claimed), or someone else holds it.
  return changed(run, statements.completeMissing(key, owner, retentionMs));
}

/** Releases `owner`'s claim of `key`, counting the attempt (see `IdempotencyStore.release`). */
export async function releaseWith(
  run: MysqlRun,
  statements: MysqlIdempotencyStatements,
  key: string,
  owner: string,
  retentionMs: number,
): Promise<boolean> {
  return changed(run, statements.release(key, owner, retentionMs));
}

/**
 * The claim of a transactional delivery, run inside its open transaction: records `key` as completed so that the
 * record commits (or rolls back) with the handlers' writes. `in_progress` when another session holds the key's lock
 * (an open transaction of a concurrent duplicate), answered at once. After the transaction ends, run
 * `statements.unlock(key)` on the same connection (or close it).
 */
export async function claimInTransactionWith(
  run: MysqlRun,
  statements: MysqlIdempotencyStatements,
  key: string,
  retentionMs: number,
): Promise<ClaimResult> {
  if (await changed(run, statements.lockAndClaimNew(key, retentionMs))) {
    return { state: "claimed", attempt: 1 };
  }
  // Read before writing: the lock holder's uncommitted row is X-locked, and an UPDATE of it would wait for the other
  // delivery's handler. A plain read never waits, and sees what is committed.
  const seen = (await run(statements.readLocked(key))).rows[0];
  // Completed within its retention: a duplicate, whoever holds the lock now (a redelivery storm all answered 200).
  if (seen?.state === "completed" && Number(seen.expired) !== 1) return { state: "completed" };
  if (Number(seen?.got) !== 1) return { state: "in_progress" };
  if (await changed(run, statements.claimAgainLocked(key, retentionMs))) {
    const row = (await run(statements.readLocked(key))).rows[0];
    return { state: "claimed", attempt: Number(row?.attempts) };
  }
  // Held, not taken: none any more (swept meanwhile: retry later).
  return { state: "in_progress" };
}

/**
 * Whether `error` (or an error it wraps: `cause`, `original`, `parent`, `driverError`) is MySQL's "lock wait timeout"
 * (1205) or "lock not available" (3572, NOWAIT): another transaction holds the row.
 */
export function isMysqlLockConflict(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === "object"; depth++) {
    const { errno, code } = current as { errno?: unknown; code?: unknown };
    if (errno === 1205 || errno === 3572 || code === "ER_LOCK_WAIT_TIMEOUT" || code === "ER_LOCK_NOWAIT") return true;
    const wrapper = current as { cause?: unknown; original?: unknown; parent?: unknown; driverError?: unknown };
    current = wrapper.cause ?? wrapper.original ?? wrapper.parent ?? wrapper.driverError;
  }
  return false;
}

/**
 * The claim of a transactional delivery on MariaDB without a named lock: its statements fail at once on a row
 * another open transaction holds (see `claimNewNoWait`), and that failure means a concurrent duplicate: `in_progress`.
 * One statement for a new key, so the transaction costs what a hand-rolled one does (no lock to free afterwards).
 */
export async function claimInTransactionNoWaitWith(
  run: MysqlRun,
  statements: MysqlIdempotencyStatements,
  key: string,
  retentionMs: number,
  isLockConflict: (error: unknown) => boolean = isMysqlLockConflict,
): Promise<ClaimResult> {
  try {
    if (await changed(run, statements.claimNewNoWait(key, retentionMs))) return { state: "claimed", attempt: 1 };
    // Read before writing: an UPDATE of a completed record would lock it, and fail concurrent duplicates' claims.
    const seen = (await run(statements.readExpiry(key))).rows[0];
    if (seen?.state === "completed" && Number(seen.expired) !== 1) return { state: "completed" };
    if (await changed(run, statements.claimAgainNoWait(key, retentionMs))) {
      const row = (await run(statements.read(key))).rows[0];
      return { state: "claimed", attempt: Number(row?.attempts) };
    }
    // Not taken: completed meanwhile, or none any more (swept: retry later).
    const row = (await run(statements.read(key))).rows[0];
    return row?.state === "completed" ? { state: "completed" } : { state: "in_progress" };
  } catch (error) {
    if (isLockConflict(error)) return { state: "in_progress" };
    throw error;
  }
}
