// The load side of the store and inbox benchmarks (redis-vs-memory, postgres-vs-memory, inbox): starts
// lib/orders-route-server.mjs with one store or inbox, drives its order-status route with autocannon (a new event per request, so every request claims and
// completes a fresh key) and stops it.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { pinnedNode } from "./cpu-pinning.mjs";
import { ORDERS_ROUTE_TOKEN } from "./orders-route-token.mjs";
import { loadFigures, newOrderEvents, postJsonLoad } from "./post-load.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const children = new Set();

/** Spawns a process and resolves once a stdout line matches `ready`, with a time limit. */
export function startProcess(command, args, ready, timeoutMs = 10_000) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
  children.add(child);
  child.on("exit", () => children.delete(child));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start within ${timeoutMs} ms`)), timeoutMs);
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code} before it was ready`));
    });
  });
}

export function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", resolve);
    child.kill("SIGTERM");
    setTimeout(() => child.kill("SIGKILL"), 3_000).unref();
  });
}

/**
 * One autocannon run against a fresh server with the given store or inbox (`target`: the Redis port or Postgres
 * URL; `more`: further server arguments, e.g. an inbox's queue name; `load.server`: another server script taking the
 * same arguments, default lib/orders-route-server.mjs; `load.serverCpus`: the cores the server is pinned to, see
 * lib/cpu-pinning.mjs).
 *
 * @param {{ connections: number, duration: number, server?: string, serverCpus?: string }} load
 */
export async function measure(store, target, round, load, more = []) {
  const args = [
    load.server ?? join(here, "orders-route-server.mjs"),
    store,
    ...(target === undefined ? [] : [String(target)]),
    ...more,
  ];
  const [command, commandArgs] = pinnedNode(args, load.serverCpus);
  const { child, match } = await startProcess(command, commandArgs, /ready (\d+)/);
  try {
    const result = await postJsonLoad({
      url: `http://127.0.0.1:${match[1]}`,
      path: `/webhooks/orders?token=${ORDERS_ROUTE_TOKEN}`,
      connections: load.connections,
      duration: load.duration,
      bodyOf: newOrderEvents(store, round), // a fresh key to claim and complete, or a new job (inbox mode)
    });
    return loadFigures(result);
  } finally {
    await stop(child);
  }
}

/** Stops every server still running (for a benchmark's `finally`). */
export function stopAll() {
  return Promise.all([...children].map(stop));
}
