import type { ChildProcess } from "node:child_process";

/**
 * Kills `child` (SIGKILL) if the test process exits while it still runs. Returns the function that forgets it, for a
 * child that never started.
 *
 * @example
 * const forget = track(spawn("redis-server", args)); // on a spawn error: forget()
 */
export function track(child: ChildProcess): () => void;

/**
 * A free TCP port on 127.0.0.1 (bound to port 0, then released).
 *
 * @example
 * const port = await freePort();
 */
export function freePort(): Promise<number>;

/** Whether something on 127.0.0.1 accepts a TCP connection on `port` within 500 ms. */
export function canConnect(port: number): Promise<boolean>;

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void>;

/** Whether `path` is a file this process may execute. */
export function isExecutable(path: string): boolean;

/** The directories of `PATH`, in order, empty entries left out. */
export function pathDirs(): string[];

/**
 * The first executable `name` in `dirs`, or `undefined`.
 *
 * @example
 * findExecutable("redis-server", pathDirs()); // "/usr/bin/redis-server"
 */
export function findExecutable(name: string, dirs: readonly string[]): string | undefined;

/** An account's uid and gid. */
export interface UnixUser {
  readonly uid: number;
  readonly gid: number;
}

/**
 * The account a server runs as when the test process is root (`undefined` when not root). Throws when the account is
 * missing: "running as root and no `<account>` user to run <server> as", then `. <hint>` when given.
 *
 * @example
 * const user = unprivilegedUser("nobody", "PostgreSQL");
 */
export function unprivilegedUser(account: string, server: string, hint?: string): UnixUser | undefined;

/**
 * A new temp dir named `<prefix>XXXXXX`, owned by `user` when one is given.
 *
 * @example
 * const root = ownedTempDir("kirimbayar-pg-", user);
 */
export function ownedTempDir(prefix: string, user?: UnixUser): string;

/** Removes a dir and everything in it; nothing happens when it is gone already. */
export function removeDir(dir: string): void;

/**
 * Sends `signal` and resolves once `child` exited; SIGKILL after `graceMs` if it is still there.
 *
 * @example
 * await stopProcess(child, "SIGTERM", 3_000);
 */
export function stopProcess(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void>;

/** Options of {@link serverProcess}. */
export interface ServerProcessOptions {
  /** The server's name in errors: "<name> exited while starting", "<name> did not start within …". */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** Spawned as this account when given (see {@link unprivilegedUser}). */
  readonly user?: UnixUser | undefined;
  /** The port the server listens on: it has started once this takes a TCP connection… */
  readonly port: number;
  /** …and its output since this start matches this. */
  readonly ready: RegExp;
  readonly startTimeoutMs: number;
  /** How long `stop()` waits for the process to exit before it SIGKILLs it. */
  readonly stopGraceMs: number;
  /** How often readiness is checked; default 50 ms. */
  readonly pollMs?: number;
  /** How much of the output is kept; default 4 000 characters. */
  readonly logTailChars?: number;
  /** Keep stdout too (default: stderr only). */
  readonly keepStdout?: boolean;
}

/** A server process that can be started, stopped and started again with the same arguments. */
export interface ServerProcess {
  /** Spawns the server unless it runs, and resolves once it is ready; throws with the output's tail otherwise. */
  start(): Promise<void>;
  /** Resumes it if frozen, sends `signal`, SIGKILLs it after the grace time; resolves once it exited. */
  stop(signal: NodeJS.Signals): Promise<void>;
  /** The running process, `undefined` before `start()` and once it exited. */
  readonly child: ChildProcess | undefined;
  /** The tail of what the server wrote, across every start. */
  logs(): string;
}

/**
 * One server process, bounded in its start and stop, killed with the test process.
 *
 * @example
 * const server = serverProcess({ name: "postgres", command, args, cwd: root, user, port, ready: /ready to accept/,
 *   startTimeoutMs: 30_000, stopGraceMs: 5_000 });
 * await server.start(); await server.stop("SIGKILL"); await server.start();
 */
export function serverProcess(options: ServerProcessOptions): ServerProcess;
