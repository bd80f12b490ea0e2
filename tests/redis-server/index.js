// Starts a throw-away redis-server on a free loopback port for the Redis-backed tests and benchmarks: no persistence,
// bounded waits, killed on stop() and when the process exits. Finds the binary even on a machine without Redis
// installed (see resolveRedisServerBinary), so the test command needs only Node and npm.
import { fileURLToPath } from "node:url";
import { findExecutable, isExecutable, ownedTempDir, pathDirs, removeDir } from "@kirimbayar/test-server-processes";
import { freePort, killNow, PortTakenError, spawnRedis, terminate } from "./lib/processes.js";

const ENV_BINARY = "KIRIMBAYAR_REDIS_SERVER";
const DEFAULT_START_TIMEOUT_MS = 10_000;
// Outside any cwd-dependent lookup, so the main vitest process and its workers share one cached build.
const DEFAULT_DOWNLOAD_DIR = fileURLToPath(new URL("./node_modules/.cache/redis-binaries", import.meta.url));

const HOW_TO_GET_REDIS =
  "Install Redis (`apt-get install redis-server` on Debian/Ubuntu, `brew install redis` on macOS) " +
  `or set ${ENV_BINARY}=/path/to/redis-server.`;

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
    if (isExecutable(fromEnv)) return { path: fromEnv, source: "env" };
    throw new Error(`${ENV_BINARY}=${fromEnv} is not an executable file. ${HOW_TO_GET_REDIS}`);
  }
  const onPath = findExecutable("redis-server", pathDirs());
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

/** Working dirs of the servers started here, removed when the process exits. */
const workDirs = new Set();
let workDirHookInstalled = false;

// A server's own working dir, so that nothing it writes (a replica saves the master's snapshot as dump.rdb before
// loading it) lands in the test's current directory. `--dir` in `args` still wins: it comes later.
function workDir() {
  const dir = ownedTempDir("kirimbayar-redis-");
  workDirs.add(dir);
  if (!workDirHookInstalled) {
    workDirHookInstalled = true;
    process.once("exit", () => {
      for (const created of workDirs) removeDir(created);
    });
  }
  return dir;
}

/** Spawns redis-server on the port and resolves once it answers PING; kills it and throws past the deadline. */
function launch(binary, port, extraArgs, startTimeoutMs, dir) {
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  return spawnRedis(binary, [...args, "--loglevel", "warning", "--dir", dir, ...extraArgs], port, startTimeoutMs);
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
  // With TLS, clients use the TLS port; the plain port (loopback) only tells the harness that the server is up.
  const tlsPort = options.tls === undefined ? undefined : await freePort();
  const tlsArgs =
    options.tls === undefined
      ? []
      : [
          "--tls-port",
          String(tlsPort),
          "--tls-cert-file",
          options.tls.cert,
          "--tls-key-file",
          options.tls.key,
          "--tls-ca-cert-file",
          options.tls.ca,
          "--tls-auth-clients",
          "no",
          "--tls-replication",
          "yes",
        ];
  const extraArgs = [...tlsArgs, ...(options.args ?? [])];
  const dir = workDir();

  // Another process may grab the probed port before redis-server binds it: try a few other ports then.
  let port;
  let child;
  for (let attempt = 1; child === undefined; attempt++) {
    port = await freePort();
    try {
      child = await launch(binary, port, extraArgs, startTimeoutMs, dir);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= 3) throw error;
    }
  }

  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    ...(tlsPort === undefined ? {} : { tlsPort, tlsUrl: `rediss://127.0.0.1:${tlsPort}` }),
    async stop() {
      if (child !== undefined) await terminate(child);
      child = undefined;
    },
    async restart() {
      if (child !== undefined) await terminate(child);
      child = undefined;
      child = await launch(binary, port, extraArgs, startTimeoutMs, dir);
    },
    async crash() {
      if (child === undefined) return;
      await killNow(child);
      child = undefined;
    },
    async start() {
      if (child === undefined) child = await launch(binary, port, extraArgs, startTimeoutMs, dir);
    },
    freeze() {
      child?.kill("SIGSTOP");
    },
    thaw() {
      child?.kill("SIGCONT");
    },
  };
}

export { startRedisCluster } from "./lib/cluster.js";
export { startLinkProxy } from "./lib/link-proxy.js";
export { parseInfo, RedisReplyError, redisCommand } from "./lib/resp.js";
export { startSentinelGroup } from "./lib/sentinel.js";
export { createTestCertificates } from "./lib/tls.js";
