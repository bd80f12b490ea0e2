import type { SqlResult } from "../sql/binding.js";
import type { ClaimResult, IdempotencyTransaction, TransactionSql } from "../types.js";
import { transactionalClaimOf } from "./claim-row.js";
import { type PgQueryable, type QueryResult, runOn, type Statement } from "./connection.js";
import { unavailable } from "./errors.js";
import { transactionalClaimPrepare } from "./sql.js";
import {
  isPoolerStatementError,
  recordStatementRefusal,
  type StatementModeReport,
  statementModeOf,
} from "./statement-mode.js";

/**
 * The claim of a transactional delivery, and its SQL-level prepared statement, so that `BEGIN` and the claim travel
 * as one simple-protocol query (`BEGIN; EXECUTE …`): the simple protocol takes no parameters, and a prepared
 * statement keeps the claim parsed and planned once per connection rather than on every delivery.
 */
export interface TransactionalClaimStatement {
  /** The claim's text (`$1` the key, `$2` the retention in ms), inlined behind `BEGIN` where `PREPARE` does not last. */
  readonly statement: Statement;
  /** The name of its SQL-level prepared statement. */
  readonly prepareName: string;
  /** The connections it is prepared on (a connection the pool replaced is a new object). */
  readonly prepared: WeakSet<object>;
}

/** Where a transaction's prepared statements are decided (see statement-mode.ts): the pool or client, and its log. */
export interface StatementScope {
  readonly scope: object;
  readonly report: StatementModeReport;
}

/**
 * One delivery's transaction on one connection. It opens with its claim: `BEGIN; EXECUTE claim(…)` in one round
 * trip (the values inlined as quoted literals), so a delivery costs two round trips of its own, open-and-claim and
 * COMMIT (plus one `PREPARE` the first time a connection serves a transactional delivery). Without prepared
 * statements (`preparedStatements: false`, or behind a pooler that keeps no SQL `PREPARE` between transactions) the
 * claim's own text goes behind `BEGIN` instead, its values inlined the same way: still one round trip. A claim the
 * pooler refused is rolled back and opened again that way before the handlers see the transaction.
 */
export class PostgresTransaction implements IdempotencyTransaction {
  #open = false;
  #ended = false;
  #abandoned = false;
  /** Present on a pooled connection only (see {@link IdempotencyTransaction.abandon}). */
  readonly abandon?: () => void;
  #sql: TransactionSql | undefined;

  constructor(
    readonly handle: PgQueryable,
    private readonly done: (error?: unknown) => void,
    private readonly claimStatement: TransactionalClaimStatement,
    /** `false` (`preparedStatements: false`): never `PREPARE`; the claim's text goes inlined behind `BEGIN`. */
    private readonly usePrepared: boolean,
    private readonly statements: StatementScope,
    pooled: boolean,
  ) {
    if (pooled) this.abandon = () => this.#abandon();
  }

  /** Other statements of the transaction (the journal's entry), on its connection, prepared as the store's are. */
  get sql(): TransactionSql {
    this.#sql ??= {
      dialect: "postgres",
      query: (sql, params, statementName) => this.#statement(sql, params, statementName),
    };
    return this.#sql;
  }

  async #statement(sql: string, params: readonly unknown[], name: string | undefined): Promise<SqlResult> {
    // Before the claim nothing is open; after the end the connection may serve another delivery.
    if (!this.#open || this.#ended) throw new Error("the delivery's transaction is not open");
    const { scope, report } = this.statements;
    // Named (parsed once per connection) where the store's own statements are, while its pool keeps such statements.
    const named = name !== undefined && this.usePrepared && statementModeOf(scope).named;
    try {
      return await runOn(this.handle, named ? { text: sql, name } : { text: sql }, [...params], named);
    } catch (error) {
      // A pooler refused the name before it ran, and aborted the transaction: the receiver rolls it back and records
      // the entry outside; the pool sends no more names from now on.
      if (named && isPoolerStatementError(error)) recordStatementRefusal(scope, "named", error, report);
      throw error;
    }
  }

  // The pool closes a connection given back with an error (a statement in flight fails at once), and the database
  // rolls back the transaction of a closed connection.
  #abandon(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#abandoned = true;
    this.done(new Error("abandoned: the webhook handlers ran out of time"));
  }

  async claim(key: string, retentionMs: number): Promise<ClaimResult> {
    let row: Record<string, unknown> | undefined;
    try {
      row = await this.#claimRow(key, retentionMs);
    } catch (error) {
      throw unavailable("claim", error);
    }
    return transactionalClaimOf(row);
  }

  // `BEGIN; EXECUTE` while the connection keeps SQL prepared statements; else `BEGIN` and the claim with its values
  // inlined, still one round trip (parsed and planned on every delivery, as any unnamed statement).
  async #claimRow(key: string, retentionMs: number): Promise<Record<string, unknown> | undefined> {
    if (this.usePrepared && statementModeOf(this.statements.scope).sqlPrepare) {
      try {
        return await this.#claimWithExecute(key, retentionMs);
      } catch (error) {
        await this.#afterRefusal(error);
      }
    }
    return this.#claimInlined(key, retentionMs);
  }

  async #claimWithExecute(key: string, retentionMs: number): Promise<Record<string, unknown> | undefined> {
    const { statement, prepareName, prepared } = this.claimStatement;
    if (!prepared.has(this.handle)) {
      await this.#send({ text: transactionalClaimPrepare(statement.text, prepareName) });
      prepared.add(this.handle);
    }
    return this.#openAndRun(`EXECUTE ${prepareName}(${quoteLiteral(key)}, ${quoteNumber(retentionMs)})`);
  }

  #claimInlined(key: string, retentionMs: number): Promise<Record<string, unknown> | undefined> {
    // Only the template's own `$1` and `$2` are replaced (one pass: the key's text is never read as a placeholder).
    const claim = this.claimStatement.statement.text.replace(/\$([12])(?!\d)/g, (_, n: string) =>
      n === "1" ? `${quoteLiteral(key)}::text` : `${quoteNumber(retentionMs)}::double precision`,
    );
    return this.#openAndRun(claim);
  }

  // The claim, behind `BEGIN` in the same simple-protocol query when the transaction is not open yet.
  async #openAndRun(claim: string): Promise<Record<string, unknown> | undefined> {
    this.#assertNotEnded();
    const opening = !this.#open;
    this.#open = true;
    const result = await this.#send({ text: opening ? `BEGIN; ${claim}` : claim });
    // A multi-statement query answers with one result per statement: the claim's is the last.
    const results = result as QueryResult | QueryResult[];
    return (Array.isArray(results) ? results[results.length - 1] : results)?.rows[0];
  }

  // A pooler refused the SQL prepared statement before it ran: the connection's scope stops using SQL `PREPARE`, and
  // the transaction the refusal aborted (if it had begun) is rolled back, so that the claim can open it again.
  // Anything else is the claim's failure.
  async #afterRefusal(error: unknown): Promise<void> {
    if (!isPoolerStatementError(error) || this.#ended) throw error;
    recordStatementRefusal(this.statements.scope, "sqlPrepare", error, this.statements.report);
    if (!this.#open) return;
    await this.#send({ text: "ROLLBACK" });
    this.#open = false;
  }

  #send(statement: Statement): PromiseLike<QueryResult> {
    return runOn(this.handle, statement, [], false);
  }

  // The transaction was ended while a statement before the claim was in flight (its time limit ran out and the
  // connection went back to the pool): opening it now would open it on a connection that may serve another delivery.
  #assertNotEnded(): void {
    if (this.#ended) throw new Error("the transaction was ended before its claim was sent");
  }

  async commit(): Promise<void> {
    if (this.#abandoned) throw unavailable("COMMIT", new Error("the transaction was abandoned"));
    await this.#end("COMMIT");
  }

  async rollback(): Promise<void> {
    await this.#end("ROLLBACK");
  }

  async #end(statement: "COMMIT" | "ROLLBACK"): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    // Nothing was sent yet: there is no transaction to end, only the connection to give back.
    if (!this.#open) return this.done();
    try {
      await this.#send({ text: statement });
      this.done();
    } catch (error) {
      // The connection is in an unknown state: the pool discards it, which also ends the transaction.
      this.done(error);
      throw unavailable(statement, error);
    }
  }
}

/**
 * A string as a PostgreSQL literal: quotes doubled, and backslashes doubled under `E''` so the literal means the
 * same whatever `standard_conforming_strings` says (as `pg`'s `escapeLiteral`).
 */
function quoteLiteral(value: string): string {
  const quoted = `'${value.replaceAll("'", "''")}'`;
  return value.includes("\\") ? ` E${quoted.replaceAll("\\", "\\\\")}` : quoted;
}

function quoteNumber(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError("PostgresIdempotencyStore: retention must be a finite number");
  return String(value);
}
