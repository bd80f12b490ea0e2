// An example shop started the way a shop runs in production: `node examples/<framework>-shop/dist/main.js` as its own
// process, configured by environment variables, stopped by a signal.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export type ShopFramework = "express" | "hono" | "fastify" | "nestjs";

const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));

/** Every shop started here and still running: killed if the test process exits without stopping them. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function killOnExit(child: ChildProcess): void {
  running.add(child);
  child.once("exit", () => running.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const shop of running) shop.kill("SIGKILL");
  });
}

/** A shop process. */
export interface ShopProcess {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  readonly pid: number;
  /** Resolves when the process has exited, with the time (performance.now()) it did. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  kill(signal: NodeJS.Signals): void;
  /** Its stdout and stderr so far (the last 20 kB). */
  logs(): string;
}

/** The path of a shop's built entry point. */
export function shopMain(framework: ShopFramework): string {
  return `${repoRoot}examples/${framework}-shop/dist/main.js`;
}

/**
 * Starts a shop on `port` with `env` and resolves once its `/readyz` answers 200 (at most `startTimeoutMs`). A shop
 * that exits first rejects with its output.
 */
export async function startShopProcess(
  framework: ShopFramework,
  name: string,
  port: number,
  env: Record<string, string>,
  startTimeoutMs = 60_000,
): Promise<ShopProcess> {
  const child: ChildProcess = spawn(process.execPath, [shopMain(framework)], {
    cwd: `${repoRoot}examples/${framework}-shop`,
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  killOnExit(child);
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the ${name} shop (${framework}) exited while starting:\n${output}`);
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the ${name} shop (${framework}) was not ready within ${startTimeoutMs} ms:\n${output}`);
    }
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    name,
    port,
    url,
    pid: child.pid as number,
    exited,
    kill: (signal) => {
      child.kill(signal);
    },
    logs: () => output,
  };
}

/** Ends every shop still running (SIGKILL), for `afterAll`. */
export async function killAll(shops: readonly ShopProcess[]): Promise<void> {
  await Promise.all(
    shops.map(async (shop) => {
      shop.kill("SIGKILL");
      await shop.exited;
    }),
  );
}
