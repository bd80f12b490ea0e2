// Redis's part of the process plumbing the harnesses (single server, Sentinel group, Cluster) share: PING readiness,
// a start that tries another port when its own was taken, and waits. Free ports, bounded stops and the kill of every
// server still running when the test process exits come from @kirimbayar/test-server-processes.
import { spawn } from "node:child_process";
import { Socket } from "node:net";
import { sleep, stopProcess, track } from "@kirimbayar/test-server-processes";

// redis-server does not accept `--port 0`: every port is probed first.
export { freePort } from "@kirimbayar/test-server-processes";

const STOP_GRACE_MS = 3_000;

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
  return stopProcess(child, "SIGTERM", STOP_GRACE_MS);
}

/** SIGKILL (no shutdown, no final save); resolves once the process exited. */
export function killNow(child) {
  return stopProcess(child, "SIGKILL", STOP_GRACE_MS);
}

/** The port was taken between probing it and the server binding it: the caller tries another. */
export class PortTakenError extends Error {}

/**
 * Spawns `binary args` and resolves with the child once a Redis answers PING on `port`; kills it and throws past
 * the deadline, or at once when it exits first (a {@link PortTakenError} when its port was in use).
 */
export async function spawnRedis(binary, args, port, startTimeoutMs) {
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
  const forget = track(child);
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
      forget();
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

/**
 * {@link spawnRedis} of `argsOf()` on `portOf()`, tried again up to `tries` times on a fresh port when another process
 * took the probed one before redis-server bound it: `movePort()` picks it (and points whatever reaches the server
 * there), unless `canMove()` says the port must stay (a node the others already know by it).
 */
export async function spawnRedisMovingPort(
  binary,
  { argsOf, portOf, movePort, startTimeoutMs, canMove = () => true, tries = 3 },
) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnRedis(binary, argsOf(), portOf(), startTimeoutMs);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= tries || !canMove()) throw error;
      await movePort();
    }
  }
}

/**
 * The settings every node of a Sentinel group or Cluster starts with: its port on loopback, no persistence, its
 * files in `dir`, warnings only, and a full sync at once (diskless sync otherwise waits 5 s for more replicas).
 */
export function nodeSettings({ port, dir, dbfilename }) {
  return {
    port,
    bind: "127.0.0.1",
    save: "",
    appendonly: "no",
    dir,
    dbfilename,
    loglevel: "warning",
    "repl-diskless-sync-delay": 0,
  };
}
