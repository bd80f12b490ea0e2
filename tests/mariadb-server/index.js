// Starts a throw-away MariaDB server on a free loopback port for the MySQL-backed tests and benchmarks. The data
// directory lives in a temp dir; under root it is owned by the unprivileged `mysql` user and the server runs as that
// user (mariadbd refuses to run as root without --user, and a root-owned datadir would hide permission bugs).
// `--no-defaults` keeps the machine's /etc/mysql configuration out. Settings are durable by default: every commit is
// flushed to the redo log (innodb_flush_log_at_trx_commit=1) and no binary log is written, so a SIGKILLed server keeps
// exactly what it acknowledged. Needs Debian's `mariadb-server` (or any MariaDB 10.6+ with mariadbd and
// mariadb-install-db); nothing is downloaded.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  findExecutable,
  freePort,
  ownedTempDir,
  pathDirs,
  removeDir,
  serverProcess,
  unprivilegedUser,
} from "@kirimbayar/test-server-processes";

const ENV_BIN_DIR = "KIRIMBAYAR_MARIADB_BIN";
const DEFAULT_START_TIMEOUT_MS = 30_000;
const INSTALL_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;
/** The database every server gets (created at each start if missing). */
export const TEST_DATABASE = "kirimbayar";

const HOW_TO_GET_MARIADB =
  "Install MariaDB (`apt-get install --no-install-recommends mariadb-server` on Debian/Ubuntu) " +
  `or set ${ENV_BIN_DIR}=/path/to/dir holding mariadbd and mariadb-install-db.`;

// Debian puts mariadbd in /usr/sbin (not on an unprivileged PATH) and mariadb-install-db in /usr/bin.
function findBinary(name) {
  const fromEnv = process.env[ENV_BIN_DIR];
  const dirs = fromEnv ? [fromEnv] : [...pathDirs(), "/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"];
  return findExecutable(name, dirs);
}

/**
 * Finds `mariadbd` and `mariadb-install-db` (KIRIMBAYAR_MARIADB_BIN, else PATH and the usual sbin/bin dirs). Throws an
 * error saying how to get MariaDB when either is missing.
 */
export async function resolveMariaDbBinaries() {
  const server = findBinary("mariadbd");
  const installDb = findBinary("mariadb-install-db");
  if (server && installDb) return { server, installDb };
  throw new Error(`No MariaDB server binaries found (mariadbd and mariadb-install-db). ${HOW_TO_GET_MARIADB}`);
}

function run(file, args, options) {
  return new Promise((resolve, reject) => {
    execFile(file, args, { ...options, timeout: INSTALL_TIMEOUT_MS }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} failed: ${error.message}\n${stdout}\n${stderr}`.slice(0, 4_000)));
      else resolve();
    });
  });
}

/**
 * Starts a MariaDB server on 127.0.0.1 (user `root` without a password, database `kirimbayar`).
 *
 * @param {{ startTimeoutMs?: number, args?: readonly string[] }} [options]
 */
export async function startMariaDbServer(options = {}) {
  const { server: mariadbd, installDb } = await resolveMariaDbBinaries();
  const user = unprivilegedUser("mysql", "MariaDB", HOW_TO_GET_MARIADB);
  const root = ownedTempDir("kirimbayar-mariadb-", user);
  const data = join(root, "data");
  const asUser = user ? { uid: user.uid, gid: user.gid } : {};
  // Small redo log and buffer pool: these servers hold a few test tables, and a 96 MB log per server adds up.
  const sizing = ["--innodb-log-file-size=16M", "--innodb-buffer-pool-size=32M"];
  try {
    await run(
      installDb,
      [
        "--no-defaults",
        `--datadir=${data}`,
        "--auth-root-authentication-method=normal",
        "--skip-test-db",
        "--skip-name-resolve",
        // Its own temp dir: bootstraps run at once (parallel test files) clashed on their temp tables in /tmp.
        `--tmpdir=${root}`,
        ...sizing,
      ],
      { ...asUser, cwd: root, env: { ...process.env, LC_ALL: "C" } },
    );
  } catch (error) {
    removeDir(root);
    throw error;
  }
  // Run at every start (also after a crash), before the server accepts connections.
  const initFile = join(root, "init.sql");
  writeFileSync(initFile, `CREATE DATABASE IF NOT EXISTS ${TEST_DATABASE} CHARACTER SET utf8mb4;\n`, { mode: 0o644 });
  const port = await freePort();
  const server = serverProcess({
    name: "mariadbd",
    command: mariadbd,
    args: [
      "--no-defaults",
      `--datadir=${data}`,
      `--port=${port}`,
      "--bind-address=127.0.0.1",
      `--socket=${join(root, "mariadb.sock")}`,
      `--pid-file=${join(root, "mariadb.pid")}`,
      `--tmpdir=${root}`,
      `--init-file=${initFile}`,
      "--skip-name-resolve",
      // Durable: each commit reaches the redo log on disk before it is acknowledged; no binary log to sync.
      "--innodb-flush-log-at-trx-commit=1",
      "--skip-log-bin",
      ...sizing,
      ...(options.args ?? []),
    ],
    cwd: root,
    user,
    port,
    // mariadbd logs readiness once InnoDB recovery and the init file are done.
    ready: /ready for connections/,
    startTimeoutMs: options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
    stopGraceMs: STOP_GRACE_MS,
  });

  try {
    await server.start();
  } catch (error) {
    removeDir(root);
    throw error;
  }
  return {
    port,
    url: `mysql://root@127.0.0.1:${port}/${TEST_DATABASE}`,
    start: server.start,
    /** Clean shutdown (SIGTERM): open transactions rolled back, connections closed, data kept. */
    stop: () => server.stop("SIGTERM"),
    /** SIGKILL of mariadbd: no shutdown; the next start recovers from the redo log. */
    crash: () => server.stop("SIGKILL"),
    /** SIGSTOP of mariadbd (one process, a thread per connection): connections stay open and answer nothing. */
    freeze() {
      server.child?.kill("SIGSTOP");
    },
    thaw() {
      server.child?.kill("SIGCONT");
    },
    async destroy() {
      await server.stop("SIGTERM");
      removeDir(root);
    },
  };
}
