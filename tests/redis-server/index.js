// Starts a throw-away redis-server on a free loopback port for the Redis-backed tests and benchmarks: no persistence,
// bounded waits, killed on stop() and when the process exits. Finds the binary even on a machine without Redis
// installed (see resolveRedisServerBinary), so the test command needs only Node and npm.
import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { createServer, Socket } from "node:net";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

const ENV_BINARY = "KIRIMBAYAR_REDIS_SERVER";
const DEFAULT_START_TIMEOUT_MS = 10_000;
const STOP_GRACE_MS = 3_000;
// Outside any cwd-dependent lookup, so the main vitest process and its workers share one cached build.
const DEFAULT_DOWNLOAD_DIR = fileURLToPath(new URL("./node_modules/.cache/redis-binaries", import.meta.url));

const HOW_TO_GET_REDIS =
  "Install Redis (`apt-get install redis-server` on Debian/Ubuntu, `brew install redis` on macOS) " +
  `or set ${ENV_BINARY}=/path/to/redis-server.`;

/** Every redis-server started here and still running: killed if the process exits without stopping them. */
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

async function findOnPath(name) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** Asks redis-memory-server for a cached build, downloading and compiling Redis on first use. */
async function downloadWithRedisMemoryServer() {
  const { RedisBinary } = await import("redis-memory-server");
  const downloadDir = process.env.REDISMS_DOWNLOAD_DIR || DEFAULT_DOWNLOAD_DIR;
  process.stderr.write(
    `redis-server is not on PATH: using redis-memory-server's Redis build in ${downloadDir} ` +
      "(built on first use: needs network, make and a C compiler, and can take a few minutes).\n",
  );
  // The version and mirror come from the REDISMS_* environment variables, as redis-memory-server documents.
  return RedisBinary.getPath({ downloadDir });
}

/**
 * Finds the redis-server binary: `KIRIMBAYAR_REDIS_SERVER` (a path), else `redis-server` on `PATH`, else a build by
 * redis-memory-server (downloaded and compiled once, then cached). Throws an error that says how to get Redis when all
 * of them fail.
 *
 * @example
 * const { path, source } = await resolveRedisServerBinary(); // source: "env" | "path" | "redis-memory-server"
 */
export async function resolveRedisServerBinary() {
  const fromEnv = process.env[ENV_BINARY];
  if (fromEnv !== undefined && fromEnv !== "") {
    if (await isExecutable(fromEnv)) return { path: fromEnv, source: "env" };
    throw new Error(`${ENV_BINARY}=${fromEnv} is not an executable file. ${HOW_TO_GET_REDIS}`);
  }
  const onPath = await findOnPath("redis-server");
  if (onPath !== undefined) return { path: onPath, source: "path" };
  try {
    return { path: await downloadWithRedisMemoryServer(), source: "redis-memory-server" };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `No redis-server for the Redis-backed tests: ${ENV_BINARY} is not set, redis-server is not on PATH, and ` +
        `redis-memory-server could not download and build Redis (${reason}). ${HOW_TO_GET_REDIS}`,
      { cause: error },
    );
  }
}

/** A free TCP port on 127.0.0.1, found by binding a socket to port 0 (redis-server does not accept `--port 0`). */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no free port")),
      );
    });
  });
}

/** Whether a Redis answers PING on the port within 200 ms. */
function ping(port) {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(200, () => done(false));
    socket.once("error", () => done(false));
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
    socket.connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
  });
}

function terminate(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

class PortTakenError extends Error {}

/** Spawns redis-server on the port and resolves once it answers PING; kills it and throws past the deadline. */
async function launch(binary, port, extraArgs, startTimeoutMs) {
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  const child = spawn(binary, [...args, "--loglevel", "warning", ...extraArgs], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  killAllOnExit();
  child.once("exit", () => running.delete(child));
  let output = "";
  let spawnError;
  const collect = (chunk) => {
    output = (output + String(chunk)).slice(-4_000);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  child.once("error", (error) => {
    spawnError = error;
  });

  const deadline = Date.now() + startTimeoutMs;
  while (Date.now() < deadline) {
    if (spawnError !== undefined) {
      running.delete(child);
      throw new Error(`Cannot start ${binary}: ${spawnError.message}`, { cause: spawnError });
    }
    if (child.exitCode !== null || child.signalCode !== null) {
      const message = `${binary} exited (${child.exitCode ?? child.signalCode}) before answering: ${output.trim()}`;
      throw /already in use/i.test(output) ? new PortTakenError(message) : new Error(message);
    }
    if (await ping(port)) return child;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await terminate(child);
  throw new Error(`${binary} did not answer PING on 127.0.0.1:${port} within ${startTimeoutMs} ms: ${output.trim()}`);
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
export async function startRedisServer(options = {}) {
  const binary = options.binary ?? (await resolveRedisServerBinary()).path;
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const extraArgs = options.args ?? [];

  // Another process may grab the probed port before redis-server binds it: try a few other ports then.
  let port;
  let child;
  for (let attempt = 1; child === undefined; attempt++) {
    port = await freePort();
    try {
      child = await launch(binary, port, extraArgs, startTimeoutMs);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= 3) throw error;
    }
  }

  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child !== undefined) await terminate(child);
      child = undefined;
    },
    async restart() {
      if (child !== undefined) await terminate(child);
      child = undefined;
      child = await launch(binary, port, extraArgs, startTimeoutMs);
    },
    async crash() {
      if (child === undefined) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
      child = undefined;
    },
    async start() {
      if (child === undefined) child = await launch(binary, port, extraArgs, startTimeoutMs);
    },
    freeze() {
      child?.kill("SIGSTOP");
    },
    thaw() {
      child?.kill("SIGCONT");
    },
  };
}
