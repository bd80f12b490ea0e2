// What the PostgreSQL store needs of a connection (`pg`'s Pool, Client, PoolClient, or PGlite) and how one of its
// statements runs on one.

/** What the store needs of a connection: `pg`'s `Pool`, `Client` and `PoolClient`, and PGlite, all have it. */
export interface PgQueryable {
  query(text: string, values?: unknown[]): PromiseLike<{ rows: Record<string, unknown>[] }>;
}

/** A `pg` `Pool` (or anything that lends a connection and takes it back). */
export interface PgPoolLike extends PgQueryable {
  connect(): PromiseLike<PgPoolClientLike>;
}

/** A connection lent by a {@link PgPoolLike}. */
export interface PgPoolClientLike extends PgQueryable {
  /** Gives the connection back; with an error, the pool discards it. */
  release(error?: Error | boolean): void;
}

/** A statement, named when the connection is `pg`'s so that it is parsed and planned once per connection. */
export interface Statement {
  readonly text: string;
  readonly name?: string;
}

/** What a connection answers to a statement: its rows and, by driver, how many rows it wrote. */
export type QueryResult = { rows: Record<string, unknown>[]; rowCount?: number | null; affectedRows?: number };

/** Runs a statement on a connection: as a named prepared statement on `pg`, as text elsewhere (PGlite). */
export function runOn(
  connection: PgQueryable,
  statement: Statement,
  values: unknown[],
  prepared: boolean,
): PromiseLike<QueryResult> {
  if (prepared && statement.name !== undefined) {
    const config = { name: statement.name, text: statement.text, values };
    return (connection.query as unknown as (config: object) => PromiseLike<QueryResult>)(config);
  }
  return connection.query(statement.text, values);
}
