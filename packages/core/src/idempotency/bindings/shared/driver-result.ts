// What `pg` and `mysql2` answer, as an SqlResult: the libraries that hand over their driver's answer (Knex's `raw`,
// Drizzle's client) answer in one of these two shapes.
import type { SqlResult } from "../../sql/binding.js";

/**
 * `pg`'s result (`{ rows, rowCount }`) or `mysql2`'s pair (`[rows, fields]` for a read, `[{ affectedRows }, …]` for
 * a write) as an {@link SqlResult}.
 */
export function driverResult(answer: unknown): SqlResult {
  const first: unknown = Array.isArray(answer) ? answer[0] : answer;
  if (Array.isArray(first)) return { rows: first as Record<string, unknown>[] };
  const result = (first ?? {}) as { rows?: unknown; rowCount?: unknown; affectedRows?: unknown };
  const rows = Array.isArray(result.rows) ? (result.rows as Record<string, unknown>[]) : [];
  const count = typeof result.rowCount === "number" ? result.rowCount : result.affectedRows;
  return typeof count === "number" ? { rows, affectedRows: count } : { rows };
}
