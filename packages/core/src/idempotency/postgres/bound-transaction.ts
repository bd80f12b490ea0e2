import type { SqlBinding, SqlResult } from "../sql/binding.js";
import type { HeldTransaction } from "../sql/callback-transaction.js";
import type { ClaimResult, IdempotencyTransaction, TransactionSql } from "../types.js";
import { transactionalClaimOf } from "./claim-row.js";
import type { Statement } from "./connection.js";
import { unavailable } from "./errors.js";

/** The claim of a transaction opened through a binding: a new key's cheap insert first, else the whole claim. */
export interface BoundClaimTexts {
  /** Inserts a new key under its advisory lock; answers `attempts` only when it did. */
  readonly newKey: Statement;
  /** Decides every case (see the store's `claimInTransaction`). */
  readonly any: Statement;
  /** Whether the binding is given the statements' names (see `SqlBinding.query`; `preparedStatements`). */
  readonly named: boolean;
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
    private readonly held: HeldTransaction<Tx>,
    private readonly claims: BoundClaimTexts,
  ) {}

  get handle(): Tx {
    return this.held.tx;
  }

  /** Other statements of the transaction (the journal's entry), through the library's transaction object. */
  get sql(): TransactionSql {
    this.#sql ??= {
      dialect: "postgres",
      query: (sql, params, statementName) =>
        this.#ended
          ? Promise.reject(new Error("the delivery's transaction is not open"))
          : this.binding.query(sql, params, this.held.tx, this.claims.named ? statementName : undefined),
    };
    return this.#sql;
  }

  async claim(key: string, retentionMs: number): Promise<ClaimResult> {
    let row: Record<string, unknown> | undefined;
    try {
      const inserted = await this.#run(this.claims.newKey, key, retentionMs);
      // A new key (the common case): one statement. A library that answers an insert's count but not its rows
      // still says so through the count.
      if (inserted.rows.length === 1 || inserted.affectedRows === 1) return { state: "claimed", attempt: 1 };
      // The whole claim would take a row this insert wrote but did not report for a duplicate's (answered 200, the
      // event never applied): without a count saying nothing was written, the delivery fails (503) instead.
      if (inserted.affectedRows !== 0) {
        throw new Error(`${this.binding.library} answered neither the claim's row nor its count of written rows`);
      }
      row = (await this.#run(this.claims.any, key, retentionMs)).rows[0];
    } catch (error) {
      throw unavailable("claim", error);
    }
    return transactionalClaimOf(row);
  }

  #run(statement: Statement, key: string, retentionMs: number): PromiseLike<SqlResult> {
    const name = this.claims.named ? statement.name : undefined;
    return this.binding.query(statement.text, [key, retentionMs], this.held.tx, name);
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
