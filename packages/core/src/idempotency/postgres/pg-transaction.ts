import type { ClaimResult, IdempotencyTransaction } from "../types.js";
import { transactionalClaimOf } from "./claim-row.js";
import { type PgQueryable, type QueryResult, runOn, type Statement } from "./connection.js";
import { unavailable } from "./errors.js";
import { transactionalClaimPrepare } from "./sql.js";
import {
  isPoolerStatementError,
  type RefusedStatements,
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
  /** The claim, named by its text (sent on its own after `BEGIN` where SQL `PREPARE` does not last). */
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
 * COMMIT (plus one `PREPARE` the first time a connection serves a transactional delivery). Behind a pooler that keeps
 * no SQL `PREPARE` between transactions, `BEGIN` and then the claim (named while the pooler keeps named statements);
 * a claim the pooler refused is rolled back and opened again that way before the handlers see the transaction.
 */
export class PostgresTransaction implements IdempotencyTransaction {
  #open = false;
  #ended = false;
  #abandoned = false;
  /** Present on a pooled connection only (see {@link IdempotencyTransaction.abandon}). */
  readonly abandon?: () => void;

  constructor(
    readonly handle: PgQueryable,
    private readonly done: (error?: unknown) => void,
    private readonly claimStatement: TransactionalClaimStatement,
    /** `false` (`preparedStatements: false`): BEGIN and the claim go as two statements, the claim unnamed. */
    private readonly usePrepared: boolean,
    private readonly statements: StatementScope,
    pooled: boolean,
  ) {
    if (pooled) this.abandon = () => this.#abandon();
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

  // The cheapest way the connection still takes: `BEGIN; EXECUTE`, else BEGIN and the claim named, else unnamed.
  async #claimRow(key: string, retentionMs: number): Promise<Record<string, unknown> | undefined> {
    const { scope } = this.statements;
    if (this.usePrepared && statementModeOf(scope).sqlPrepare) {
      try {
        return await this.#claimWithExecute(key, retentionMs);
      } catch (error) {
        await this.#afterRefusal(error, "sqlPrepare");
      }
    }
    if (this.usePrepared && statementModeOf(scope).named) {
      try {
        return await this.#claimAfterBegin(key, retentionMs, true);
      } catch (error) {
        await this.#afterRefusal(error, "named");
      }
    }
    return this.#claimAfterBegin(key, retentionMs, false);
  }

  async #claimWithExecute(key: string, retentionMs: number): Promise<Record<string, unknown> | undefined> {
    const { statement, prepareName, prepared } = this.claimStatement;
    const execute = `EXECUTE ${prepareName}(${quoteLiteral(key)}, ${quoteNumber(retentionMs)})`;
    if (!prepared.has(this.handle)) {
      await this.#send({ text: transactionalClaimPrepare(statement.text, prepareName) });
      prepared.add(this.handle);
    }
    this.#assertNotEnded();
    const opening = !this.#open;
    this.#open = true;
    const result = await this.#send({ text: opening ? `BEGIN; ${execute}` : execute });
    // A multi-statement query answers with one result per statement: the claim's is the last.
    const results = result as QueryResult | QueryResult[];
    return (Array.isArray(results) ? results[results.length - 1] : results)?.rows[0];
  }

  async #claimAfterBegin(key: string, retentionMs: number, named: boolean) {
    if (!this.#open) {
      this.#assertNotEnded();
      this.#open = true;
      await this.#send({ text: "BEGIN" });
    }
    this.#assertNotEnded();
    return (await runOn(this.handle, this.claimStatement.statement, [key, retentionMs], named)).rows[0];
  }

  // A pooler refused the prepared statement before it ran: the connection's scope stops using that kind, and the
  // transaction the refusal aborted (if it had begun) is rolled back, so that the claim can open it again. Anything
  // else is the claim's failure.
  async #afterRefusal(error: unknown, refused: RefusedStatements): Promise<void> {
    if (!isPoolerStatementError(error) || this.#ended) throw error;
    recordStatementRefusal(this.statements.scope, refused, error, this.statements.report);
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
