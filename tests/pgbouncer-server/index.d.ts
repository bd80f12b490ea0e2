/**
 * The pgbouncer binary: `KIRIMBAYAR_PGBOUNCER_BIN`, else Debian's `/usr/sbin/pgbouncer`, else the first on the PATH.
 * Throws an error saying how to install PgBouncer when there is none.
 *
 * @example
 * const bin = resolvePgBouncerBin(); // "/usr/sbin/pgbouncer"
 */
export function resolvePgBouncerBin(): string;

/** When PgBouncer gives a server connection back to its pool. */
export type PgBouncerPoolMode = "transaction" | "session";

/** Options of {@link startPgBouncer}. */
export interface StartPgBouncerOptions {
  /**
   * `transaction` (default): a server connection serves a client for one transaction, then any other client (what
   * the pooled URLs of Supabase, Neon, DigitalOcean and Heroku give). `session`: for the client's whole connection.
   */
  readonly poolMode?: PgBouncerPoolMode;
  /** Server connections per database and user (`default_pool_size`, default 20). */
  readonly poolSize?: number;
  /** More `[pgbouncer]` settings, e.g. `{ server_reset_query: "" }`; they override the harness's own. */
  readonly settings?: Readonly<Record<string, string | number>>;
  /** How long to wait for it to listen, on start and restart; default 15 000 ms. */
  readonly startTimeoutMs?: number;
}

/** A throw-away PgBouncer on 127.0.0.1: user `postgres`, trust authentication, every database passed through. */
export interface TestPgBouncer {
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  readonly poolMode: PgBouncerPoolMode;
  /** Whether its process is running. */
  readonly running: boolean;
  /** Starts it again after `stop()` or `crash()`, on the same port. */
  start(): Promise<void>;
  /** Immediate shutdown (SIGTERM): every client and server connection is closed. */
  stop(): Promise<void>;
  /** SIGKILL: no shutdown at all; every connection through it drops, transactions in flight roll back. */
  crash(): Promise<void>;
  /** The last few KB of its log (stderr). */
  logs(): string;
  /** Stops it and deletes its temp dir. */
  destroy(): Promise<void>;
}

/**
 * Starts PgBouncer (as `nobody` when running as root, which PgBouncer refuses) on a free loopback port in front of
 * the PostgreSQL server listening on `server.port` (a `TestPostgresServer` from `@kirimbayar/test-postgres-server`).
 *
 * @example
 * const postgres = await startPostgresServer();
 * const bouncer = await startPgBouncer(postgres, { poolMode: "transaction" });
 * const pool = new pg.Pool({ connectionString: bouncer.url });
 * await bouncer.crash(); await bouncer.start(); // the pool reconnects on the same port
 * await bouncer.destroy(); await postgres.destroy();
 */
export function startPgBouncer(
  server: { readonly port: number; readonly host?: string },
  options?: StartPgBouncerOptions,
): Promise<TestPgBouncer>;
