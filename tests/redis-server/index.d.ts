/** Where {@link resolveRedisServerBinary} found redis-server. */
export type RedisServerBinarySource = "env" | "path" | "redis-memory-server";

/** A redis-server binary and where it was found. */
export interface RedisServerBinary {
  readonly path: string;
  readonly source: RedisServerBinarySource;
}

/**
 * Finds the redis-server binary: `KIRIMBAYAR_REDIS_SERVER` (a path), else `redis-server` on `PATH`, else a build by
 * redis-memory-server (downloaded and compiled once, then cached). Throws an error that says how to get Redis when all
 * of them fail.
 *
 * @example
 * const { path, source } = await resolveRedisServerBinary(); // source: "env" | "path" | "redis-memory-server"
 */
export function resolveRedisServerBinary(): Promise<RedisServerBinary>;

/** Options of {@link startRedisServer}. */
export interface StartRedisServerOptions {
  /** Path of the redis-server to run; default: {@link resolveRedisServerBinary}. */
  readonly binary?: string;
  /** How long to wait for the server to answer PING, on start and on restart; default 10 000 ms. */
  readonly startTimeoutMs?: number;
  /** Extra command-line arguments, e.g. `["--maxmemory", "10mb"]`. */
  readonly args?: readonly string[];
}

/** A running throw-away redis-server on 127.0.0.1 without persistence. */
export interface TestRedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** Stops the process (SIGTERM, SIGKILL after 3 s) and waits for it to exit; the data is lost. Idempotent. */
  stop(): Promise<void>;
  /** Stops it if running, then starts it again on the same port (empty): simulates an outage. */
  restart(): Promise<void>;
  /**
   * Kills the process with SIGKILL (no shutdown, no final save) and waits for it to exit. With persistence in
   * `args` (`--appendonly yes --appendfsync always --dir <dir>`), {@link TestRedisServer.start} brings the data back.
   */
  crash(): Promise<void>;
  /** Starts it again on the same port and arguments after `crash()` or `stop()`; nothing when it runs. */
  start(): Promise<void>;
  /** Suspends the process (SIGSTOP): connections stay open and commands wait, as with a frozen host. */
  freeze(): void;
  /** Resumes a frozen process (SIGCONT). */
  thaw(): void;
}

/**
 * Starts a redis-server on a free 127.0.0.1 port with `--save '' --appendonly no` and resolves once it answers PING.
 * The binary comes from {@link resolveRedisServerBinary} unless `options.binary` names one.
 *
 * @example
 * const redis = await startRedisServer();
 * afterAll(() => redis.stop());
 * const client = new Redis(redis.url);
 */
export function startRedisServer(options?: StartRedisServerOptions): Promise<TestRedisServer>;
