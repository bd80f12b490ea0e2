/** The database every server gets: `kirimbayar` (created at each start if missing). */
export const TEST_DATABASE: "kirimbayar";

/**
 * Finds `mariadbd` and `mariadb-install-db`: in `KIRIMBAYAR_MARIADB_BIN` (a directory holding both), else on `PATH`
 * and in the usual `sbin`/`bin` directories. Throws an error saying how to install MariaDB when either is missing.
 *
 * @example
 * const { server, installDb } = await resolveMariaDbBinaries();
 */
export function resolveMariaDbBinaries(): Promise<{ readonly server: string; readonly installDb: string }>;

/** Options of {@link startMariaDbServer}. */
export interface StartMariaDbServerOptions {
  /** How long to wait for the server to accept connections, on start and restart; default 30 000 ms. */
  readonly startTimeoutMs?: number;
  /** Extra `mariadbd` arguments, e.g. `["--max-connections=50"]` (they come last, so they override the defaults). */
  readonly args?: readonly string[];
}

/**
 * A throw-away MariaDB server on 127.0.0.1: user `root` without a password, database `kirimbayar`, durable settings
 * (`innodb_flush_log_at_trx_commit=1`, no binary log).
 */
export interface TestMariaDbServer {
  readonly port: number;
  /** `mysql://root@127.0.0.1:<port>/kirimbayar` */
  readonly url: string;
  /** Starts it again after `stop()` or `crash()`, same port and data. */
  start(): Promise<void>;
  /** Clean shutdown (open transactions rolled back, connections closed); data kept for `start()`. */
  stop(): Promise<void>;
  /** SIGKILL of `mariadbd`: no shutdown; the next `start()` recovers InnoDB from its redo log. */
  crash(): Promise<void>;
  /** SIGSTOP of `mariadbd`: connections stay open and answer nothing. */
  freeze(): void;
  /** Resumes a frozen server. */
  thaw(): void;
  /** Stops the server and deletes its data directory. */
  destroy(): Promise<void>;
}

/**
 * Initialises a data directory with `mariadb-install-db` in a temp dir (owned by the `mysql` user when running as
 * root, the server then running as that user) and starts `mariadbd --no-defaults` on a free loopback port with its
 * own socket.
 *
 * @example
 * const db = await startMariaDbServer(); const pool = mysql.createPool(db.url); await pool.end(); await db.destroy();
 */
export function startMariaDbServer(options?: StartMariaDbServerOptions): Promise<TestMariaDbServer>;
