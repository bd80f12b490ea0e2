import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";

/** A throwaway `redis-server` on a free loopback port, without persistence. */
export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/**
 * Starts `redis-server` (path from `KIRIMBAYAR_REDIS_SERVER`, default `/usr/bin/redis-server`) and resolves once it
 * accepts connections; rejects after 10 s.
 */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const binary = process.env.KIRIMBAYAR_REDIS_SERVER ?? "/usr/bin/redis-server";
  const child: ChildProcess = spawn(
    binary,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("redis-server did not start within 10 s")), 10_000);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
