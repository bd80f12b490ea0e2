import type { ClaimResult, IdempotencyTransaction, TransactionSql } from "../types.js";
import { transactionalClaimOf } from "./claim-row.js";
import type { PgQueryable, Statement } from "./connection.js";
import { unavailable } from "./errors.js";

/** A single connection that runs transactions through a callback (PGlite). */
export interface CallbackTransactions {
  transaction<T>(callback: (tx: PgQueryable & { rollback(): Promise<void> }) => Promise<T>): Promise<T>;
}

/**
 * One delivery's transaction inside a PGlite `transaction(callback)`: commit or rollback ends the callback. PGlite
 * refuses every statement on a transaction once it has ended, so abandoning one (handlers out of time) is a rollback
 * that does not wait for them: their later writes fail, and the one connection is free for the next delivery.
 */
export class CallbackTransaction implements IdempotencyTransaction {
  #ended = false;
  #abandoned = false;
  #sql: TransactionSql | undefined;

  constructor(
    readonly handle: PgQueryable,
    private readonly finish: (commit: boolean) => void,
    private readonly running: Promise<unknown>,
    private readonly release: () => void,
    private readonly claimSql: Statement,
  ) {}

  /** Other statements of the transaction (the journal's entry), through PGlite's transaction object. */
  get sql(): TransactionSql {
    this.#sql ??= {
      dialect: "postgres",
      query: (sql, params) =>
        this.#ended
          ? Promise.reject(new Error("the delivery's transaction is not open"))
          : this.handle.query(sql, [...params]),
    };
    return this.#sql;
  }

  async claim(key: string, retentionMs: number): Promise<ClaimResult> {
    let row: Record<string, unknown> | undefined;
    try {
      row = (await this.handle.query(this.claimSql.text, [key, retentionMs])).rows[0];
    } catch (error) {
      throw unavailable("claim", error);
    }
    return transactionalClaimOf(row);
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
    this.#end(false).catch(() => {});
  }

  async #end(commit: boolean): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    this.finish(commit);
    try {
      await this.running;
    } catch (error) {
      throw unavailable(commit ? "COMMIT" : "ROLLBACK", error);
    } finally {
      this.release();
    }
  }
}
