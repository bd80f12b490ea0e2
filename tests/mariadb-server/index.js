// Starts a throw-away MariaDB server on a free loopback port for the MySQL-backed tests and benchmarks. The data
// directory lives in a temp dir; under root it is owned by the unprivileged `mysql` user and the server runs as that
// user (mariadbd refuses to run as root without --user, and a root-owned datadir would hide permission bugs).
// `--no-defaults` keeps the machine's /etc/mysql configuration out. Settings are durable by default: every commit is
// flushed to the redo log (innodb_flush_log_at_trx_commit=1) and no binary log is written, so a SIGKILLed server keeps
// exactly what it acknowledged. Needs Debian's `mariadb-server` (or any MariaDB 10.6+ with mariadbd and
// mariadb-install-db); nothing is downloaded.
import { execFile, spawn } from "node:child_process";
import { chownSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { access } from "node:fs/promises";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

const ENV_BIN_DIR = "KIRIMBAYAR_MARIADB_BIN";
const DEFAULT_START_TIMEOUT_MS = 30_000;
const INSTALL_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;
/** The database every server gets (created at each start if missing). */
export const TEST_DATABASE = "kirimbayar";

const HOW_TO_GET_MARIADB =
  "Install MariaDB (`apt-get install --no-install-recommends mariadb-server` on Debian/Ubuntu) " +
  `or set ${ENV_BIN_DIR}=/path/to/dir holding mariadbd and mariadb-install-db.`;

/** Every server started here and still running: killed if the process exits without stopping them. */
const running = new Set();
let exitHookInstalled = false;

function killAllOnExit() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const child of running) child.kill("SIGKILL");
  });
}

async function isExecutable(path) {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// Debian puts mariadbd in /usr/sbin (not on an unprivileged PATH) and mariadb-install-db in /usr/bin.
async function findBinary(name) {
  const fromEnv = process.env[ENV_BIN_DIR];
  const dirs = fromEnv
    ? [fromEnv]
    : [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"];
  for (const dir of dirs) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Finds `mariadbd` and `mariadb-install-db` (KIRIMBAYAR_MARIADB_BIN, else PATH and the usual sbin/bin dirs). Throws an
 * error saying how to get MariaDB when either is missing.
 */
export async function resolveMariaDbBinaries() {
  const server = await findBinary("mariadbd");
  const installDb = await findBinary("mariadb-install-db");
  if (server && installDb) return { server, installDb };
  throw new Error(`No MariaDB server binaries found (mariadbd and mariadb-install-db). ${HOW_TO_GET_MARIADB}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The unprivileged account MariaDB runs as when we are root. */
function unprivilegedUser() {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("mysql:"));
  if (!line) throw new Error(`running as root and no \`mysql\` user to run MariaDB as. ${HOW_TO_GET_MARIADB}`);
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

function canConnect(port) {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.connect(port, "127.0.0.1", () => done(true));
  });
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
  const user = unprivilegedUser();
  const root = mkdtempSync(join(tmpdir(), "kirimbayar-mariadb-"));
  if (user) chownSync(root, user.uid, user.gid);
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
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  // Run at every start (also after a crash), before the server accepts connections.
  const initFile = join(root, "init.sql");
  writeFileSync(initFile, `CREATE DATABASE IF NOT EXISTS ${TEST_DATABASE} CHARACTER SET utf8mb4;\n`, { mode: 0o644 });
  const port = await freePort();
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  let child;
  let logs = "";

  async function start() {
    if (child) return;
    const args = [
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
    ];
    const started = spawn(mariadbd, args, { ...asUser, cwd: root, stdio: ["ignore", "ignore", "pipe"] });
    child = started;
    running.add(started);
    killAllOnExit();
    started.stderr.on("data", (chunk) => {
      logs = (logs + chunk).slice(-4_000);
    });
    started.once("exit", () => {
      running.delete(started);
      if (child === started) child = undefined;
    });
    const deadline = Date.now() + startTimeoutMs;
    // mariadbd logs readiness once InnoDB recovery and the init file are done.
    while (!/ready for connections/.test(logs) || !(await canConnect(port))) {
      if (child !== started) throw new Error(`mariadbd exited while starting:\n${logs}`);
      if (Date.now() > deadline) throw new Error(`mariadbd did not start within ${startTimeoutMs} ms:\n${logs}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    logs = "";
  }

  async function stopWith(signal) {
    const current = child;
    if (!current) return;
    const exited = new Promise((resolve) => current.once("exit", resolve));
    current.kill("SIGCONT");
    current.kill(signal);
    const timer = setTimeout(() => current.kill("SIGKILL"), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }

  try {
    await start();
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    url: `mysql://root@127.0.0.1:${port}/${TEST_DATABASE}`,
    start,
    /** Clean shutdown (SIGTERM): open transactions rolled back, connections closed, data kept. */
    stop: () => stopWith("SIGTERM"),
    /** SIGKILL of mariadbd: no shutdown; the next start recovers from the redo log. */
    crash: () => stopWith("SIGKILL"),
    /** SIGSTOP of mariadbd (one process, a thread per connection): connections stay open and answer nothing. */
    freeze() {
      child?.kill("SIGSTOP");
    },
    thaw() {
      child?.kill("SIGCONT");
    },
    async destroy() {
      await stopWith("SIGTERM");
      rmSync(root, { recursive: true, force: true });
    },
  };
}
