// Which prepared statements a `pg` pool or client still gets: all of them until a connection pooler in transaction mode
// (PgBouncer, Supavisor) shows that it keeps none between transactions, then only those it can keep. The store, the
// delivery journal and the pg-boss inbox on the same pool (or client) object share one mode, so the first of them to
// meet the pooler switches them all, and the switch is logged once.
//
// A pooler's refusal always comes before the statement runs: PostgreSQL answers a Parse of a name the server
// connection already has with 42P05, and a Bind or EXECUTE of a name it lacks with 26000, and runs nothing. So a
// statement refused outside a transaction is simply sent again unprepared; inside one, the refusal aborted the
// transaction, which the caller rolls back and opens again before anything else was sent in it.
import type { WebhookLogger } from "../../webhooks/logger.js";

/** What a pool or client may still be sent. */
export interface StatementMode {
  /** SQL-level `PREPARE`, `EXECUTE`d later in another transaction (the store's one-round-trip claim). */
  readonly sqlPrepare: boolean;
  /** Protocol-level named statements, parsed once per connection and bound by name afterwards. */
  readonly named: boolean;
}

/** Which kind of prepared statement a pooler refused. */
export type RefusedStatements = "sqlPrepare" | "named";

/** Who met the refusal, for the log line; and where it goes. */
export interface StatementModeReport {
  /** `"PostgresIdempotencyStore"`, `"PostgresDeliveryJournal"`, `"pg-boss inbox"`. */
  readonly component: string;
  readonly logger: WebhookLogger;
}

const EVERYTHING: StatementMode = { sqlPrepare: true, named: true };
const modes = new WeakMap<object, StatementMode>();

/**
 * The mode of `scope` (the `pg` Pool, Client, or other object the statements are sent through).
 *
 * @example
 * if (!statementModeOf(pool).named) console.log("a transaction-mode pooler is in front of this pool");
 */
export function statementModeOf(scope: object): StatementMode {
  return modes.get(scope) ?? EVERYTHING;
}

// 42P05 duplicate_prepared_statement, 26000 invalid_sql_statement_name: what PostgreSQL answers when a pooler hands
// a client's named statement to a server connection that has (or lacks) that name. The messages are PostgreSQL's own
// ("prepared statement "x" already exists" / "does not exist", also "unnamed prepared statement does not exist"),
// which every pooler passes through; PgBouncer 1.21+ with `max_prepared_statements` closes a client that misuses a
// name with "prepared statement ... already in use" / "did not exist" instead.
const POOLER_CODES = new Set(["42P05", "26000"]);
const POOLER_MESSAGE =
  /prepared statement .*(already exists|does not exist|did not exist|already in use)|prepared statement name is already in use/i;

/**
 * Whether `error` (or its cause, as drivers and ORMs wrap it) is a refusal of a prepared statement: what a
 * transaction-mode pooler makes PostgreSQL answer. Nothing ran.
 *
 * @example
 * isPoolerStatementError({ code: "42P05", message: 'prepared statement "s1" already exists' }); // true
 */
export function isPoolerStatementError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && typeof current === "object"; depth++) {
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === "string" && POOLER_CODES.has(code)) return true;
    if (typeof message === "string" && POOLER_MESSAGE.test(message)) return true;
    current = cause;
  }
  return false;
}

/**
 * Records that `scope`'s pooler refused `what` (named statements imply SQL `PREPARE` too), for everything sending
 * through `scope` from now on. The first switch of a scope is logged as a warning, later ones (the other kind) at
 * debug: one line per pool that says what happened and that nothing failed. No connection details are logged.
 *
 * @example
 * // Inside a transaction the refusal aborted it: record it, roll back, open it again unnamed.
 * if (isPoolerStatementError(error)) recordStatementRefusal(pool, "named", error, { component: "my-app", logger: console });
 */
export function recordStatementRefusal(
  scope: object,
  what: RefusedStatements,
  error: unknown,
  report: StatementModeReport,
) {
  const before = statementModeOf(scope);
  const after: StatementMode =
    what === "named" ? { sqlPrepare: false, named: false } : { ...before, sqlPrepare: false };
  if (after.sqlPrepare === before.sqlPrepare && after.named === before.named) return;
  modes.set(scope, after);
  const code = codeOf(error);
  const details = { component: report.component, ...(code === undefined ? {} : { code }) };
  if (before === EVERYTHING) {
    report.logger.warn?.(
      `${report.component}: a connection pooler in transaction mode (PgBouncer, Supavisor) is between this pool and ` +
        `PostgreSQL: it refused a prepared statement${code === undefined ? "" : ` (SQLSTATE ${code})`}, as such a ` +
        "pooler keeps none between transactions (so does a DISCARD ALL or DEALLOCATE in the app's own code). " +
        "kirimbayar now sends this pool's statements unprepared where it has to, for every store, journal and inbox " +
        "on it; nothing failed. preparedStatements: false starts so.",
      details,
    );
  } else {
    report.logger.debug?.(
      `${report.component}: the pooler refused ${what === "named" ? "named" : "SQL"} statements too`,
      details,
    );
  }
}

/**
 * Sends one statement outside any transaction: `send(true)` (named) while `scope` takes named statements, and once
 * more unnamed, `send(false)`, when the pooler refuses it (switching `scope` for good). Any other failure is passed on.
 *
 * @example
 * const { rows } = await sendNamedUnlessRefused(
 *   pool,
 *   (named) => (named ? pool.query({ name: "my_count", text: "SELECT count(*) FROM orders" }) : pool.query("SELECT count(*) FROM orders")),
 *   { component: "my-app", logger: console },
 * );
 */
export async function sendNamedUnlessRefused<R>(
  scope: object,
  send: (named: boolean) => PromiseLike<R>,
  report: StatementModeReport,
): Promise<R> {
  if (!statementModeOf(scope).named) return send(false);
  try {
    return await send(true);
  } catch (error) {
    if (!isPoolerStatementError(error)) throw error;
    recordStatementRefusal(scope, "named", error, report);
    return send(false);
  }
}

function codeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && typeof current === "object"; depth++) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = cause;
  }
  return undefined;
}
