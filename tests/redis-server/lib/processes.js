// Process plumbing shared by the harnesses (single server, Sentinel group, Cluster): free ports, PING readiness,
// bounded start and stop, and a kill of every server still running when the test process exits.
import { spawn } from "node:child_process";
import { createServer, Socket } from "node:net";

const STOP_GRACE_MS = 3_000;

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

/** A free TCP port on 127.0.0.1, found by binding a socket to port 0 (redis-server does not accept `--port 0`). */
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

/** Whether a Redis answers PING on the port within 200 ms (NOAUTH, from a server with a password, counts). */
export function ping(port) {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(200, () => done(false));
    socket.once("error", () => done(false));
    socket.once("data", (data) => done(/^(\+PONG|-NOAUTH)/.test(data.toString())));
    socket.connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
  });
}

/** SIGTERM, SIGKILL after 3 s; resolves once the process exited. */
export function terminate(child) {
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

/** SIGKILL (no shutdown, no final save); resolves once the process exited. */
export function killNow(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  return exited;
}

/** The port was taken between probing it and the server binding it: the caller tries another. */
export class PortTakenError extends Error {}

/**
 * Spawns `binary args` and resolves with the child once a Redis answers PING on `port`; kills it and throws past
 * the deadline, or at once when it exits first (a {@link PortTakenError} when its port was in use).
 */
export async function spawnRedis(binary, args, port, startTimeoutMs) {
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
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
    await sleep(25);
  }
  await terminate(child);
  throw new Error(`${binary} did not answer PING on 127.0.0.1:${port} within ${startTimeoutMs} ms: ${output.trim()}`);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `check` every `everyMs` until it returns something other than `undefined` or `false`, and resolves with
 * that; throws `what` once `timeoutMs` ran out (a failing check counts as not yet).
 */
export async function waitFor(what, check, { timeoutMs, everyMs = 100 }) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? ` (last error: ${lastError.message})` : "";
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
    }
    await sleep(everyMs);
  }
}

/** `{ port: 6379, save: "" }` as `["--port", "6379", "--save", ""]` (in the object's order). */
export function serverArgs(settings) {
  return Object.entries(settings).flatMap(([name, value]) => [`--${name}`, String(value)]);
}
