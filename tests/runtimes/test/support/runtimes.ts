import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { Miniflare } from "miniflare";
import { rolldown } from "rolldown";
import { buildShop, CONFIG_NAMES, LIFETIME_NAME, type ShopConfig } from "../../worker/shop.ts";
import { bunBinary, denoBinary } from "./binaries.ts";
import { startListeningChild } from "./child.ts";

/** A shop serving on a loopback port. */
export interface RunningShop {
  baseUrl: string;
  close(): Promise<void>;
}

export interface RuntimeUnderTest {
  name: "node" | "bun" | "deno" | "workerd";
  start(config: ShopConfig): Promise<RunningShop>;
}

const packageDir = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const repoRoot = dirname(dirname(packageDir));
const START_TIMEOUT_MS = 20_000;
/** No child outlives this, whatever happens to the test that started it: the test kills it, and it exits itself. */
const CHILD_LIFETIME_MS = 120_000;

function configEnv(config: ShopConfig): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, name] of Object.entries(CONFIG_NAMES)) env[name] = config[key as keyof ShopConfig];
  return env;
}

/** The shop's configuration plus the lifetime after which a Bun or Deno child exits by itself. */
function childEnv(config: ShopConfig): Record<string, string> {
  return { ...configEnv(config), [LIFETIME_NAME]: String(CHILD_LIFETIME_MS) };
}

/** Only what a runtime needs: no inherited NODE_OPTIONS, proxies or CI secrets. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const name of ["PATH", "HOME", "TMPDIR", "LANG"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The reference: the same shop in the test's own Node, served by @hono/node-server. */
export const nodeRuntime: RuntimeUnderTest = {
  name: "node",
  async start(config) {
    const app = buildShop(config);
    const server = await new Promise<Server>((resolve) => {
      const started = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started as Server));
    });
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("node: no TCP address");
    return {
      baseUrl: `http://127.0.0.1:${address.port}`,
      close: () =>
        new Promise<void>((resolve, reject) => {
          server.closeAllConnections();
          server.close((error) => (error ? reject(error) : resolve()));
        }),
    };
  },
};

/** Bun runs worker/bun.ts as it is, resolving the packages from node_modules (`--no-install`: never fetches). */
export const bunRuntime: RuntimeUnderTest = {
  name: "bun",
  async start(config) {
    const child = await startListeningChild({
      name: "bun",
      command: bunBinary(),
      args: ["run", "--no-install", "worker/bun.ts"],
      cwd: packageDir,
      env: { ...baseEnv(), ...childEnv(config) },
      startTimeoutMs: START_TIMEOUT_MS,
      lifetimeMs: CHILD_LIFETIME_MS,
    });
    return { baseUrl: `http://127.0.0.1:${child.port}`, close: child.close };
  },
};

/**
 * Deno runs worker/deno.ts as it is, importing the packages from the pnpm node_modules (`--node-modules-dir=manual`),
 * with network access to loopback only, reads inside the repository and its four variables. Its cache goes to a
 * temporary DENO_DIR removed on close; no lockfile is written.
 */
export const denoRuntime: RuntimeUnderTest = {
  name: "deno",
  async start(config) {
    const denoDir = mkdtempSync(join(tmpdir(), "kirimbayar-deno-"));
    const env = childEnv(config);
    try {
      const child = await startListeningChild({
        name: "deno",
        command: denoBinary(),
        args: [
          "run",
          "--no-lock",
          "--no-prompt",
          "--node-modules-dir=manual",
          "--allow-net=127.0.0.1",
          `--allow-env=${Object.keys(env).join(",")}`,
          `--allow-read=${repoRoot}`,
          "worker/deno.ts",
        ],
        cwd: packageDir,
        env: { ...baseEnv(), ...env, DENO_DIR: denoDir, DENO_NO_UPDATE_CHECK: "1" },
        startTimeoutMs: START_TIMEOUT_MS,
        lifetimeMs: CHILD_LIFETIME_MS,
      });
      return {
        baseUrl: `http://127.0.0.1:${child.port}`,
        close: async () => {
          await child.close();
          rmSync(denoDir, { recursive: true, force: true });
        },
      };
    } catch (error) {
      rmSync(denoDir, { recursive: true, force: true });
      throw error;
    }
  },
};

/**
 * worker/workerd.ts bundled into one ES module (zod, hono and kirimbayar inlined) for the conditions wrangler uses,
 * so core's `#crypto` is the Web Crypto one. Returned as text; see {@link workerdRuntime}.
 */
export async function bundleWorker(): Promise<string> {
  const bundle = await rolldown({
    input: join(packageDir, "worker/workerd.ts"),
    platform: "browser",
    resolve: { conditionNames: ["workerd", "worker", "browser", "import", "default"] },
    logLevel: "silent",
  });
  try {
    const { output } = await bundle.generate({ format: "esm", codeSplitting: false });
    if (output.length !== 1 || output[0].type !== "chunk") throw new Error("workerd: the bundle is not one chunk");
    return output[0].code;
  } finally {
    await bundle.close();
  }
}

/**
 * workerd through miniflare: the bundled worker as an ES module worker, without `nodejs_compat`, its configuration
 * as bindings, listening on a free loopback port. Its `fetch` to the fake on 127.0.0.1 goes out directly (miniflare's
 * default outbound allows it).
 */
export function workerdRuntime(code: string): RuntimeUnderTest {
  return {
    name: "workerd",
    async start(config) {
      const mf = new Miniflare({
        modules: [{ type: "ESModule", path: "worker.js", contents: code }],
        compatibilityDate: "2026-04-01",
        bindings: configEnv(config),
        host: "127.0.0.1",
        port: 0,
      });
      try {
        const url = await withTimeout(mf.ready, START_TIMEOUT_MS, "workerd: miniflare start");
        return { baseUrl: url.origin, close: () => withTimeout(mf.dispose(), 10_000, "workerd: miniflare dispose") };
      } catch (error) {
        await mf.dispose().catch(() => {});
        throw error;
      }
    },
  };
}
