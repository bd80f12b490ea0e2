// Starts a throw-away PgBouncer on a free loopback port in front of a test PostgreSQL (tests/postgres-server), in
// `transaction` or `session` pool mode: what the pooled connection strings of Supabase, Neon, DigitalOcean and Heroku
// put between a shop and its database. PgBouncer refuses to run as root, so under root it runs as `nobody`, with its
// configuration in a temp dir it can read. The binary comes from KIRIMBAYAR_PGBOUNCER_BIN (a file), else Debian's
// `pgbouncer` package (/usr/sbin/pgbouncer) or the PATH. It logs to its stderr, kept for error messages.
import { spawn } from "node:child_process";
import { accessSync, chmodSync, chownSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

const ENV_BIN = "KIRIMBAYAR_PGBOUNCER_BIN";
const DEFAULT_START_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 5_000;
const POOL_MODES = ["transaction", "session"];

/** Every PgBouncer started here and still running: killed if the process exits without stopping them. */
const running = new Set();
let exitHookInstalled = false;

function killAllOnExit() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const child of running) child.kill("SIGKILL");
  });
}

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The pgbouncer binary: KIRIMBAYAR_PGBOUNCER_BIN, else /usr/sbin/pgbouncer (Debian), else the first on the PATH.
 * Throws an error saying how to get PgBouncer when there is none.
 */
export function resolvePgBouncerBin() {
  const fromEnv = process.env[ENV_BIN];
  if (fromEnv) {
    if (executable(fromEnv)) return fromEnv;
    throw new Error(`${ENV_BIN}=${fromEnv} is not an executable pgbouncer`);
  }
  const candidates = [
    "/usr/sbin/pgbouncer",
    ...(process.env.PATH ?? "").split(delimiter).map((dir) => join(dir, "pgbouncer")),
  ];
  const found = candidates.find((path) => path !== "pgbouncer" && executable(path));
  if (found) return found;
  throw new Error(
    "No pgbouncer binary found. Install PgBouncer (`apt-get install pgbouncer` on Debian/Ubuntu) or set " +
      `${ENV_BIN}=/path/to/pgbouncer.`,
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

/** The unprivileged account PgBouncer runs as when we are root (it refuses to run as root). */
function unprivilegedUser() {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("nobody:"));
  if (!line) throw new Error("running as root and no `nobody` user to run PgBouncer as");
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

const SETTING_NAME = /^[a-z_]+$/;

/** The ini file: every database name is passed to the server as it is, users as the auth file lists them. */
function iniOf({ root, port, serverPort, serverHost, poolMode, poolSize, settings }) {
  const base = {
    listen_addr: "127.0.0.1",
    listen_port: port,
    // No Unix socket: nothing to clean up after a SIGKILL, and tests connect over TCP as apps do.
    unix_socket_dir: "",
    auth_type: "trust",
    auth_file: join(root, "users.txt"),
    admin_users: "postgres",
    pool_mode: poolMode,
    default_pool_size: poolSize,
    max_client_conn: 500,
    // pg and the ORMs send these at startup; PgBouncer 1.18 refuses a startup parameter it does not know.
    ignore_startup_parameters: "extra_float_digits,options",
    // A server connection that failed to log in is retried after this long (default 15 s): a test restarting
    // PostgreSQL behind the pooler should not wait for it.
    server_login_retry: 1,
  };
  const all = { ...base, ...settings };
  const lines = Object.entries(all).map(([name, value]) => {
    if (!SETTING_NAME.test(name)) throw new TypeError(`startPgBouncer: bad setting name ${JSON.stringify(name)}`);
    if (/[\r\n]/.test(String(value))) throw new TypeError(`startPgBouncer: setting ${name} holds a line break`);
    return `${name} = ${value}`;
  });
  return `[databases]\n* = host=${serverHost} port=${serverPort}\n\n[pgbouncer]\n${lines.join("\n")}\n`;
}

/**
 * Starts PgBouncer on 127.0.0.1 in front of the PostgreSQL server at `server.port` (user `postgres`, trust
 * authentication, any database name passed through).
 *
 * @param {{ port: number, host?: string }} server
 * @param {{ poolMode?: "transaction" | "session", poolSize?: number, settings?: Record<string, string | number>, startTimeoutMs?: number }} [options]
 */
export async function startPgBouncer(server, options = {}) {
  const serverPort = server?.port;
  if (!Number.isInteger(serverPort)) throw new TypeError("startPgBouncer: pass the PostgreSQL server ({ port })");
  const poolMode = options.poolMode ?? "transaction";
  if (!POOL_MODES.includes(poolMode))
    throw new TypeError(`startPgBouncer: poolMode must be ${POOL_MODES.join(" or ")}`);
  const poolSize = options.poolSize ?? 20;
  if (!Number.isInteger(poolSize) || poolSize < 1)
    throw new TypeError("startPgBouncer: poolSize must be a positive integer");
  const bin = resolvePgBouncerBin();
  const user = unprivilegedUser();
  const root = mkdtempSync(join(tmpdir(), "kirimbayar-pgbouncer-"));
  const port = await freePort();
  const ini = join(root, "pgbouncer.ini");
  writeFileSync(
    ini,
    iniOf({
      root,
      port,
      serverPort,
      serverHost: server.host ?? "127.0.0.1",
      poolMode,
      poolSize,
      settings: options.settings ?? {},
    }),
  );
  writeFileSync(join(root, "users.txt"), '"postgres" ""\n');
  for (const file of [ini, join(root, "users.txt")]) chmodSync(file, 0o644);
  if (user) chownSync(root, user.uid, user.gid);
  const asUser = user ? { uid: user.uid, gid: user.gid } : {};
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  let child;
  let logs = "";

  async function start() {
    if (child) return;
    const started = spawn(bin, [ini], { ...asUser, cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    child = started;
    running.add(started);
    killAllOnExit();
    const keep = (chunk) => {
      logs = (logs + chunk).slice(-8_000);
    };
    started.stdout.on("data", keep);
    started.stderr.on("data", keep);
    started.once("exit", () => {
      running.delete(started);
      if (child === started) child = undefined;
    });
    const deadline = Date.now() + startTimeoutMs;
    // It logs "process up" once its listening socket is open; a restart on the same port may take a moment to bind.
    while (!/process up/.test(logs) || !(await canConnect(port))) {
      if (child !== started) throw new Error(`pgbouncer exited while starting:\n${logs}`);
      if (Date.now() > deadline) throw new Error(`pgbouncer did not start within ${startTimeoutMs} ms:\n${logs}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async function stopWith(signal) {
    const current = child;
    if (!current) return;
    const exited = new Promise((resolve) => current.once("exit", resolve));
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
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    poolMode,
    start,
    /** Immediate shutdown (SIGTERM): client and server connections are closed at once. */
    stop: () => stopWith("SIGTERM"),
    /** SIGKILL: no shutdown at all; every connection through it drops. */
    crash: () => stopWith("SIGKILL"),
    get running() {
      return child !== undefined;
    },
    logs: () => logs,
    async destroy() {
      await stopWith("SIGTERM");
      rmSync(root, { recursive: true, force: true });
    },
  };
}
