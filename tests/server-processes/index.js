// Process plumbing the throw-away test servers share (tests/postgres-server, tests/mariadb-server,
// tests/pgbouncer-server, tests/redis-server): a free loopback port, the unprivileged account a server refuses root
// for, a temp dir it owns, a start that waits until the server is really up (bounded), a stop that escalates to
// SIGKILL, and a kill of every server still running when the test process exits, so a failed test leaves none behind.
import { spawn } from "node:child_process";
import { accessSync, chownSync, constants, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

/** Every process tracked here and still running: killed if the test process exits without stopping them. */
const running = new Set();
let exitHookInstalled = false;

/**
 * Kills `child` (SIGKILL) if the test process exits while it still runs. Returns the function that forgets it, for a
 * child that never started (a spawn error, after which no `exit` may come).
 */
export function track(child) {
  running.add(child);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const tracked of running) tracked.kill("SIGKILL");
    });
  }
  child.once("exit", () => running.delete(child));
  return () => running.delete(child);
}

/** A free TCP port on 127.0.0.1, found by binding a socket to port 0 (not every server accepts a port 0 of its own). */
export function freePort() {
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

/** Whether something on 127.0.0.1 accepts a TCP connection on `port` within 500 ms. */
export function canConnect(port) {
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

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `path` is a file this process may execute. */
export function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The directories of `PATH`, in order, empty entries left out. */
export function pathDirs() {
  return (process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "");
}

/** The first executable `name` in `dirs`, or `undefined`. */
export function findExecutable(name, dirs) {
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The account (uid and gid) a server runs as when the test process is root, which PostgreSQL, PgBouncer and MariaDB
 * refuse; `undefined` when not root. Throws when the account is missing, naming `server` and adding `hint`.
 */
export function unprivilegedUser(account, server, hint) {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith(`${account}:`));
  if (!line) {
    throw new Error(`running as root and no \`${account}\` user to run ${server} as${hint ? `. ${hint}` : ""}`);
  }
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

/** A new temp dir named `<prefix>XXXXXX`, owned by `user` when one is given (the server writes in it). */
export function ownedTempDir(prefix, user) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (user) chownSync(dir, user.uid, user.gid);
  return dir;
}

/** Removes a temp dir and everything in it; nothing happens when it is gone already. */
export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Sends `signal` and resolves once `child` exited; SIGKILL after `graceMs` if it is still there. Resolves at once for
 * a child that exited already.
 */
export function stopProcess(child, signal, graceMs) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

/**
 * One server process that can be started, stopped or killed, and started again with the same arguments (same port,
 * same data). `start()` spawns it (as `user` when given) and resolves once its output since this start matches
 * `ready` and `port` takes a TCP connection; it throws, with the tail of the output, when the process exits first or
 * `startTimeoutMs` runs out. `stop(signal)` resumes a frozen process, sends `signal`, and SIGKILLs it after
 * `stopGraceMs`.
 */
export function serverProcess({
  name,
  command,
  args,
  cwd,
  user,
  port,
  ready,
  startTimeoutMs,
  stopGraceMs,
  pollMs = 50,
  logTailChars = 4_000,
  keepStdout = false,
}) {
  let child;
  // The tail of everything the server wrote, and of what it wrote since the current start (readiness, errors).
  let logs = "";
  let sinceStart = "";

  async function start() {
    if (child) return;
    const asUser = user ? { uid: user.uid, gid: user.gid } : {};
    const started = spawn(command, args, { ...asUser, cwd, stdio: ["ignore", keepStdout ? "pipe" : "ignore", "pipe"] });
    child = started;
    sinceStart = "";
    track(started);
    const keep = (chunk) => {
      logs = (logs + chunk).slice(-logTailChars);
      sinceStart = (sinceStart + chunk).slice(-logTailChars);
    };
    started.stdout?.on("data", keep);
    started.stderr.on("data", keep);
    started.once("exit", () => {
      if (child === started) child = undefined;
    });
    const deadline = Date.now() + startTimeoutMs;
    while (!ready.test(sinceStart) || !(await canConnect(port))) {
      if (child !== started) throw new Error(`${name} exited while starting:\n${sinceStart}`);
      if (Date.now() > deadline) throw new Error(`${name} did not start within ${startTimeoutMs} ms:\n${sinceStart}`);
      await sleep(pollMs);
    }
  }

  async function stop(signal) {
    const current = child;
    if (!current) return;
    // A frozen (SIGSTOPped) process acts on no signal but SIGKILL.
    current.kill("SIGCONT");
    await stopProcess(current, signal, stopGraceMs);
  }

  return {
    start,
    stop,
    /** The running process, `undefined` before `start()` and once it exited. */
    get child() {
      return child;
    },
    /** The tail of what the server wrote to its stderr (and stdout with `keepStdout`), across every start. */
    logs: () => logs,
  };
}
