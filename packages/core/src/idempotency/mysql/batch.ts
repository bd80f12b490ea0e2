// Claims and completions of many deliveries in one statement each (the store gathers concurrent calls with
// KeyedBatcher): under load the per-statement cost of the driver and of InnoDB's durable commit dominates a small
// idempotency write, so one multi-row statement serves a whole batch. Only the common outcome is batched: a new key
// claimed, a held key completed. Anything else (a duplicate's record read back, a released or expired record to take
// over, a key someone else holds) is then settled per key by the single-row operations of operations.ts, whose
// semantics the batch keeps.
import type { ClaimResult } from "../types.js";
import { claimWith, completeWith, type MysqlRun } from "./operations.js";
import { DEFAULT_MYSQL_IDEMPOTENCY_TABLE, quotedMysqlTable } from "./schema.js";
import type { MysqlIdempotencyStatements, MysqlStatement } from "./sql.js";

/** One call of a batch: the key, the delivery that owns (or claims) it, and a lease or retention in ms. */
export interface MysqlBatchCall {
  readonly key: string;
  readonly owner: string;
  readonly ms: number;
}

/** A claim's answer in a batch: `claimed` tells the batcher's late handler which ones to give back. */
export type MysqlBatchClaim = ClaimResult & { readonly key: string };

const HASH = "UNHEX(SHA2(?, 256))";
const NOW = "UTC_TIMESTAMP(6)";
const later = `${NOW} + INTERVAL (? * 1000) MICROSECOND`;
const FREE = `(expires_at <= ${NOW} OR state = 'released' OR (state = 'processing' AND lease_expires_at <= ${NOW}))`;
const COLUMNS = "(key_hash, `key`, state, owner, attempts, lease_expires_at, expires_at)";

/**
 * Statements are prepared per text on each connection (mysql2's `execute`): a batch is padded to the next power of
 * two by repeating its last call, so a few texts serve every batch size. A repeated row changes nothing: a second
 * INSERT IGNORE of a key is ignored, and a repeated value in an `IN` list matches the same row.
 */
function padded<T>(items: readonly T[]): T[] {
  let size = 1;
  while (size < items.length) size *= 2;
  const out = items.slice();
  while (out.length < size) out.push(items[items.length - 1] as T);
  return out;
}

function millis(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) {
    throw new TypeError("MysqlIdempotencyStore: leases and retentions must be finite, non-negative milliseconds");
  }
  return Math.round(ms);
}

/** The multi-row statements of the MySQL store for one table. */
export interface MysqlBatchStatements {
  /** Write. Records each new key as `processing` for its owner (`INSERT IGNORE`): rows = how many were new. */
  claimNew(calls: readonly MysqlBatchCall[]): MysqlStatement;
  /** Read. `key`, `state`, `owner`, `attempts` and `free` (1: nobody holds it any more) of the keys' records. */
  read(keys: readonly string[]): MysqlStatement;
  /**
   * Write. Completes each key its call's owner holds, keeping the owner (so a read tells which ones this batch
   * completed), all with one retention: rows = how many.
   */
  completeHeld(calls: readonly MysqlBatchCall[], retentionMs: number): MysqlStatement;
}

/** Builds the multi-row statements for `table` (checked as {@link quotedMysqlTable} does). */
export function mysqlBatchStatements(table: string = DEFAULT_MYSQL_IDEMPOTENCY_TABLE): MysqlBatchStatements {
  const t = quotedMysqlTable(table);
  const list = (count: number, item: string) => Array.from({ length: count }, () => item).join(", ");
  return {
    claimNew: (calls) => {
      const rows = padded(calls);
      const values: (string | number)[] = [];
      for (const { key, owner, ms } of rows) {
        const lease = millis(ms);
        values.push(key, key, owner, lease, lease);
      }
      const row = `(${HASH}, ?, 'processing', ?, 1, ${later}, ${later})`;
      return { sql: `INSERT IGNORE INTO ${t} ${COLUMNS} VALUES ${list(rows.length, row)}`, values, kind: "write" };
    },
    read: (keys) => {
      const rows = padded(keys);
      return {
        sql: `SELECT \`key\`, state, owner, attempts, ${FREE} AS free FROM ${t} WHERE key_hash IN (${list(rows.length, HASH)})`,
        values: rows,
        kind: "read",
      };
    },
    completeHeld: (calls, retentionMs) => {
      const rows = padded(calls);
      const values: (string | number)[] = [millis(retentionMs)];
      for (const { key } of rows) values.push(key);
      for (const { key, owner } of rows) values.push(key, owner);
      return {
        sql: `UPDATE ${t} SET state = 'completed', lease_expires_at = NULL, expires_at = ${later}
WHERE key_hash IN (${list(rows.length, HASH)}) AND (key_hash, owner) IN (${list(rows.length, `(${HASH}, ?)`)})`,
        values,
        kind: "write",
      };
    },
  };
}

/** Whether `error` (or an error it wraps as `cause`) is InnoDB's deadlock (1213): the statement was rolled back. */
export function isMysqlDeadlock(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === "object"; depth++) {
    const { errno, code } = current as { errno?: unknown; code?: unknown };
    if (errno === 1213 || code === "ER_LOCK_DEADLOCK") return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

// A deadlock rolls back only the one statement (autocommit), so it is sent once more.
async function write(run: MysqlRun, statement: MysqlStatement): Promise<number> {
  let result: Awaited<ReturnType<MysqlRun>>;
  try {
    result = await run(statement);
  } catch (error) {
    if (!isMysqlDeadlock(error)) throw error;
    result = await run(statement);
  }
  if (typeof result.affectedRows !== "number") {
    throw new TypeError("the database library reported no affected-row count for a write of the MySQL store");
  }
  return result.affectedRows;
}

// Keys in one order for every batch: two batches sharing keys lock their rows in the same order, never in a cycle.
function byKey(calls: readonly MysqlBatchCall[]): MysqlBatchCall[] {
  return calls.slice().sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

async function readBack(
  run: MysqlRun,
  batch: MysqlBatchStatements,
  calls: readonly MysqlBatchCall[],
): Promise<Map<string, Record<string, unknown>>> {
  const { rows } = await run(batch.read(calls.map((call) => call.key)));
  const found = new Map<string, Record<string, unknown>>();
  for (const row of rows) found.set(String(row.key), row);
  return found;
}

/**
 * Claims a batch of distinct keys: one `INSERT IGNORE` of all of them; when every key was new, that is all. Else one
 * read tells which records this batch's owners now hold (the inserted ones: an owner names one delivery), which are
 * duplicates (completed, or held by a live lease), and the records nobody holds any more are taken over one by one
 * with the single-row claim, which counts the attempt. Two batches racing for a key cannot both claim it: the
 * insert is atomic per row, and a read only reports a record its own owner holds.
 */
export async function claimBatchWith(
  run: MysqlRun,
  batch: MysqlBatchStatements,
  statements: MysqlIdempotencyStatements,
  calls: readonly MysqlBatchCall[],
): Promise<Map<string, MysqlBatchClaim>> {
  const sorted = byKey(calls);
  const answers = new Map<string, MysqlBatchClaim>();
  const inserted = await write(run, batch.claimNew(sorted));
  if (inserted === sorted.length) {
    for (const { key } of sorted) answers.set(key, { key, state: "claimed", attempt: 1 });
    return answers;
  }
  try {
    return await settleClaims(run, batch, statements, sorted, answers);
  } catch (error) {
    // The insert took some keys and the batch fails (answered 503): give back what this batch's owners hold, or the
    // provider's retries would be answered 409 until the leases end. Only a record its own owner holds is released.
    for (const call of sorted) {
      Promise.resolve(run(statements.release(call.key, call.owner, call.ms))).catch(() => {});
    }
    throw error;
  }
}

async function settleClaims(
  run: MysqlRun,
  batch: MysqlBatchStatements,
  statements: MysqlIdempotencyStatements,
  sorted: readonly MysqlBatchCall[],
  answers: Map<string, MysqlBatchClaim>,
): Promise<Map<string, MysqlBatchClaim>> {
  const found = await readBack(run, batch, sorted);
  const rest: MysqlBatchCall[] = [];
  for (const call of sorted) {
    const row = found.get(call.key);
    if (row?.state === "processing" && row.owner === call.owner) {
      answers.set(call.key, { key: call.key, state: "claimed", attempt: Number(row.attempts) });
    } else if (row !== undefined && Number(row.free) !== 1) {
      answers.set(call.key, {
        key: call.key,
        ...(row.state === "completed" ? { state: "completed" } : { state: "in_progress" }),
      });
    } else {
      // Released, past its retention or lease, or gone again (swept): the single-row claim decides.
      rest.push(call);
    }
  }
  // Distinct keys: their single-row claims go out together.
  await Promise.all(
    rest.map(async (call) => {
      answers.set(call.key, { key: call.key, ...(await claimWith(run, statements, call.key, call.owner, call.ms)) });
    }),
  );
  return answers;
}

/**
 * Completes a batch of distinct keys: one `UPDATE` per retention of the records their owners hold; when it completed
 * them all, that is all. Else one read tells which ones it completed (completed, still naming this owner), and the
 * rest (no record, or one nobody holds any more, or someone else's) go through the single-row completion. Returns the
 * keys that were recorded completed.
 */
export async function completeBatchWith(
  run: MysqlRun,
  batch: MysqlBatchStatements,
  statements: MysqlIdempotencyStatements,
  calls: readonly MysqlBatchCall[],
): Promise<Map<string, true>> {
  const byRetention = new Map<number, MysqlBatchCall[]>();
  for (const call of byKey(calls)) {
    const ms = millis(call.ms);
    const group = byRetention.get(ms) ?? [];
    group.push(call);
    byRetention.set(ms, group);
  }
  const done = new Map<string, true>();
  for (const [ms, group] of byRetention) {
    const completed = await write(run, batch.completeHeld(group, ms));
    if (completed === group.length) {
      for (const { key } of group) done.set(key, true);
      continue;
    }
    const found = await readBack(run, batch, group);
    for (const call of group) {
      const row = found.get(call.key);
      if (row?.state === "completed" && row.owner === call.owner) {
        done.set(call.key, true);
      } else if (await completeWith(run, statements, call.key, call.owner, call.ms)) {
        done.set(call.key, true);
      }
    }
  }
  return done;
}
