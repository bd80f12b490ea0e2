import type { SqlResult } from "../sql/binding.js";
import type { ClaimResult, IdempotencyTransaction, TransactionSql } from "../types.js";
import { transactionalClaimOf } from "./claim-row.js";
import type { PgQueryable, QueryResult, Statement } from "./connection.js";
import { unavailable } from "./errors.js";

/**
 * The claim of a transactional delivery as an SQL-level prepared statement, so that `BEGIN` and the claim travel as
 * one simple-protocol query (`BEGIN; EXECUTE …`): the simple protocol takes no parameters, and a prepared statement
 * keeps the claim parsed and planned once per connection rather than on every delivery.
 */
export interface TransactionalClaimStatement {
  readonly name: string;
  readonly text: string;
  /** The connections it is prepared on (a connection the pool replaced is a new object). */
  readonly prepared: WeakSet<object>;
}

/**
 * One delivery's transaction on one connection. It opens with its claim: `BEGIN; EXECUTE claim(…)` in one round
 * trip (the values inlined as quoted literals), so a delivery costs two round trips of its own, open-and-claim and
 * COMMIT (plus one `PREPARE` the first time a connection serves a transactional delivery).
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
    /** `false` (`preparedStatements: false`): BEGIN and the claim go as two statements, the claim unnamed. */
    private readonly usePrepared: boolean,
    private readonly query: (statement: Statement, values: unknown[]) => PromiseLike<QueryResult>,
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
    return this.query(name === undefined ? { text: sql } : { text: sql, name }, [...params]);
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
    if (!this.usePrepared) return this.#claimUnprepared(key, retentionMs);
    const { name, text, prepared } = this.claimStatement;
    let row: Record<string, unknown> | undefined;
    try {
      const execute = `EXECUTE ${name}(${quoteLiteral(key)}, ${quoteNumber(retentionMs)})`;
      if (!prepared.has(this.handle)) {
        await this.query({ text: `PREPARE ${name}(text, double precision) AS ${text}` }, []);
        prepared.add(this.handle);
      }
      this.#assertNotEnded();
      const opening = !this.#open;
      this.#open = true;
      const result = await this.query({ text: opening ? `BEGIN; ${execute}` : execute }, []);
      // A multi-statement query answers with one result per statement: the claim's is the last.
      const results = result as QueryResult | QueryResult[];
      row = (Array.isArray(results) ? results[results.length - 1] : results)?.rows[0];
    } catch (error) {
      throw unavailable("claim", error);
    }
    return transactionalClaimOf(row);
  }

  async #claimUnprepared(key: string, retentionMs: number): Promise<ClaimResult> {
    const { text } = this.claimStatement;
    let row: Record<string, unknown> | undefined;
    try {
      if (!this.#open) {
        this.#assertNotEnded();
        this.#open = true;
        await this.query({ text: "BEGIN" }, []);
      }
      this.#assertNotEnded();
      row = (await this.query({ text }, [key, retentionMs])).rows[0];
    } catch (error) {
      throw unavailable("claim", error);
    }
    return transactionalClaimOf(row);
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
      await this.query({ text: statement }, []);
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
