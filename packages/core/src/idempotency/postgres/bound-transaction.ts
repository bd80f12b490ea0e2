import type { SqlBinding, SqlResult } from "../sql/binding.js";
import { type HeldTransaction, holdTransaction } from "../sql/callback-transaction.js";
import type { ClaimResult, IdempotencyTransaction, TransactionSql } from "../types.js";
import { transactionalClaimOf } from "./claim-row.js";
import type { Statement } from "./connection.js";
import { unavailable } from "./errors.js";
import type { StatementScope } from "./pg-transaction.js";
import { isPoolerStatementError, recordStatementRefusal, statementModeOf } from "./statement-mode.js";

/** The claim of a transaction opened through a binding: a new key's cheap insert first, else the whole claim. */
export interface BoundClaimTexts {
  /** Inserts a new key under its advisory lock; answers `attempts` only when it did. */
  readonly newKey: Statement;
  /** Decides every case (see the store's `claimInTransaction`). */
  readonly any: Statement;
  /**
   * Whether the binding is given the statements' names (see `SqlBinding.query`; `preparedStatements`) while the
   * binding's pooler keeps named statements (the binding is their scope: see statement-mode.ts).
   */
  readonly named: boolean;
  /** The binding as the scope of its statement mode, and where a pooler's refusal is logged. */
  readonly statements: StatementScope;
}

/**
 * One delivery's transaction opened by the app's own library through its binding: the claim runs as a statement of
 * it, and the handlers get the library's transaction object. Abandoning it (handlers out of time) lets the binding
 * make the transaction's later statements fail (closing its connection where the library would run them), then
 * rolls it back without waiting for the handlers.
 */
export class BoundTransaction<Tx> implements IdempotencyTransaction<Tx> {
  #ended = false;
  #abandoned = false;
  #sql: TransactionSql | undefined;

  constructor(
    private readonly binding: SqlBinding<Tx>,
    private held: HeldTransaction<Tx>,
    private readonly claims: BoundClaimTexts,
  ) {}

  get handle(): Tx {
    return this.held.tx;
  }

  /** Other statements of the transaction (the journal's entry), through the library's transaction object. */
  get sql(): TransactionSql {
    this.#sql ??= { dialect: "postgres", query: (sql, params, name) => this.#statement(sql, params, name) };
    return this.#sql;
  }

  async #statement(sql: string, params: readonly unknown[], name: string | undefined): Promise<SqlResult> {
    if (this.#ended) throw new Error("the delivery's transaction is not open");
    const { scope, report } = this.claims.statements;
    // Named where the claim is, while the binding's pool keeps such statements.
    const named = name !== undefined && this.claims.named && statementModeOf(scope).named;
    try {
      return await this.binding.query(sql, params, this.held.tx, named ? name : undefined);
    } catch (error) {
      // A pooler refused the name before it ran, and aborted the transaction: the receiver rolls it back and records
      // the entry outside; the binding sends no more names from now on.
      if (named && isPoolerStatementError(error)) recordStatementRefusal(scope, "named", error, report);
      throw error;
    }
  }

  async claim(key: string, retentionMs: number): Promise<ClaimResult> {
    const { scope, report } = this.claims.statements;
    const named = this.claims.named && statementModeOf(scope).named;
    try {
      return await this.#claim(key, retentionMs, named);
    } catch (error) {
      if (!named || !isPoolerStatementError(error) || this.#ended) throw unavailable("claim", error);
      recordStatementRefusal(scope, "named", error, report);
    }
    // The pooler refused the named claim before it ran, and PostgreSQL aborted the library's transaction with it:
    // nothing else was sent in it, so it is rolled back and another opened, before the handlers ever see one.
    try {
      await this.held.end(false);
      const again = await holdTransaction(this.binding);
      // Ended meanwhile (the claim ran out of time): the new transaction must not stay open, holding a connection.
      if (this.#ended) {
        await again.end(false);
        throw new Error("the transaction was ended while it was opened again");
      }
      this.held = again;
    } catch (error) {
      this.#ended = true;
      throw unavailable("BEGIN", error);
    }
    try {
      return await this.#claim(key, retentionMs, false);
    } catch (error) {
      throw unavailable("claim", error);
    }
  }

  async #claim(key: string, retentionMs: number, named: boolean): Promise<ClaimResult> {
    const inserted = await this.#run(this.claims.newKey, key, retentionMs, named);
    // A new key (the common case): one statement. A library that answers an insert's count but not its rows
    // still says so through the count.
    if (inserted.rows.length === 1 || inserted.affectedRows === 1) return { state: "claimed", attempt: 1 };
    // The whole claim would take a row this insert wrote but did not report for a duplicate's (answered 200, the
    // event never applied): without a count saying nothing was written, the delivery fails (503) instead.
    if (inserted.affectedRows !== 0) {
      throw new Error(`${this.binding.library} answered neither the claim's row nor its count of written rows`);
    }
    return transactionalClaimOf((await this.#run(this.claims.any, key, retentionMs, named)).rows[0]);
  }

  #run(statement: Statement, key: string, retentionMs: number, named: boolean): PromiseLike<SqlResult> {
    return this.binding.query(statement.text, [key, retentionMs], this.held.tx, named ? statement.name : undefined);
  }

  commit(): Promise<void> {
    if (this.#abandoned) return Promise.reject(unavailable("COMMIT", new Error("the transaction was abandoned")));
    return this.#end(true);
  }

  rollback(): Promise<void> {
    return this.#end(false);
  }

  abandon(): void {
    if (this.#ended) return;
    this.#abandoned = true;
    try {
      this.binding.abandon(this.held.tx);
    } finally {
      this.#end(false).catch(() => {});
    }
  }

  async #end(commit: boolean): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    try {
      await this.held.end(commit);
    } catch (error) {
      throw unavailable(commit ? "COMMIT" : "ROLLBACK", error);
    }
  }
}
