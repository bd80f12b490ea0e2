// Starts a throw-away PgBouncer on a free loopback port in front of a test PostgreSQL (tests/postgres-server), in
// `transaction` or `session` pool mode: what the pooled connection strings of Supabase, Neon, DigitalOcean and Heroku
// put between a shop and its database. PgBouncer refuses to run as root, so under root it runs as `nobody`, with its
// configuration in a temp dir it can read. The binary comes from KIRIMBAYAR_PGBOUNCER_BIN (a file), else Debian's
// `pgbouncer` package (/usr/sbin/pgbouncer) or the PATH. It logs to its stderr, kept for error messages.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  findExecutable,
  freePort,
  isExecutable,
  ownedTempDir,
  pathDirs,
  removeDir,
  serverProcess,
  unprivilegedUser,
} from "@kirimbayar/test-server-processes";

const ENV_BIN = "KIRIMBAYAR_PGBOUNCER_BIN";
const DEFAULT_START_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 5_000;
const POOL_MODES = ["transaction", "session"];

/**
 * The pgbouncer binary: KIRIMBAYAR_PGBOUNCER_BIN, else /usr/sbin/pgbouncer (Debian), else the first on the PATH.
 * Throws an error saying how to get PgBouncer when there is none.
 */
export function resolvePgBouncerBin() {
  const fromEnv = process.env[ENV_BIN];
  if (fromEnv) {
    if (isExecutable(fromEnv)) return fromEnv;
    throw new Error(`${ENV_BIN}=${fromEnv} is not an executable pgbouncer`);
  }
  const found = findExecutable("pgbouncer", ["/usr/sbin", ...pathDirs()]);
  if (found) return found;
  throw new Error(
    "No pgbouncer binary found. Install PgBouncer (`apt-get install pgbouncer` on Debian/Ubuntu) or set " +
      `${ENV_BIN}=/path/to/pgbouncer.`,
  );
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
  const user = unprivilegedUser("nobody", "PgBouncer");
  const root = ownedTempDir("kirimbayar-pgbouncer-", user);
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
  const pgbouncer = serverProcess({
    name: "pgbouncer",
    command: bin,
    args: [ini],
    cwd: root,
    user,
    port,
    // It logs "process up" once its listening socket is open; a restart on the same port may take a moment to bind.
    ready: /process up/,
    startTimeoutMs: options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
    stopGraceMs: STOP_GRACE_MS,
    pollMs: 25,
    keepStdout: true,
    logTailChars: 8_000,
  });

  try {
    await pgbouncer.start();
  } catch (error) {
    removeDir(root);
    throw error;
  }
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    poolMode,
    start: pgbouncer.start,
    /** Immediate shutdown (SIGTERM): client and server connections are closed at once. */
    stop: () => pgbouncer.stop("SIGTERM"),
    /** SIGKILL: no shutdown at all; every connection through it drops. */
    crash: () => pgbouncer.stop("SIGKILL"),
    get running() {
      return pgbouncer.child !== undefined;
    },
    logs: pgbouncer.logs,
    async destroy() {
      await pgbouncer.stop("SIGTERM");
      removeDir(root);
    },
  };
}
