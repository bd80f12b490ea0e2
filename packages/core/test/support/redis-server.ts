// Starts a throw-away redis-server on a free loopback port for tests (no persistence), and can stop and restart it
// on the same port to simulate an outage.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, Socket } from "node:net";

const REDIS_BINARY = process.env.REDIS_SERVER_BIN ?? "redis-server";

/** A running test Redis. */
export interface TestRedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the process (waits for it to exit); data is lost (no persistence). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(200, () => done(false));
    socket.once("error", () => done(false));
    socket.connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
  });
}

async function launch(port: number): Promise<ChildProcess> {
  const child = spawn(
    REDIS_BINARY,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel", "warning"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited early (${child.exitCode}): ${stderr}`);
    if (await ping(port)) return child;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  child.kill("SIGKILL");
  throw new Error(`redis-server did not answer on port ${port} within 5 s: ${stderr}`);
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts redis-server on a free 127.0.0.1 port with `--save '' --appendonly no`.
 *
 * @example
 * const redis = await startRedisServer(); afterAll(() => redis.stop());
 */
export async function startRedisServer(): Promise<TestRedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined = await launch(port);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child !== undefined) await terminate(child);
      child = undefined;
    },
    async restart() {
      if (child !== undefined) await terminate(child);
      child = await launch(port);
    },
  };
}
