// Binary resolution order (env, PATH, redis-memory-server cache, clear error) with stand-in scripts that exec the real
// redis-server, and the lifecycle of a started server: PING-ready, no persistence across restart, stop, kill on exit.
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { resolveRedisServerBinary, startRedisServer } from "../index.js";

let realRedis: string;
let work: string;

beforeAll(async () => {
  realRedis = (await resolveRedisServerBinary()).path;
  work = mkdtempSync(join(tmpdir(), "kirimbayar-redis-server-"));
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

afterEach(() => {
  vi.unstubAllEnvs();
});

/** Writes an executable shell script `dir/redis-server` that logs its arguments to `marker`, then runs `body`. */
function script(dir: string, body: string): { path: string; marker: string } {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "redis-server");
  const marker = join(dir, "calls.log");
  writeFileSync(path, `#!/bin/sh\necho "$@" >> '${marker}'\n${body}\n`);
  chmodSync(path, 0o755);
  return { path, marker };
}

/** A stand-in `redis-server` that records its call and execs the real one. */
function wrapper(dir: string) {
  return script(dir, `exec '${realRedis}' "$@"`);
}

/** Sends one inline Redis command and resolves with the first reply line, or `undefined` if nothing answers. */
function send(port: number, command: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (reply: string | undefined) => {
      socket.destroy();
      resolve(reply);
    };
    socket.setTimeout(1_000, () => done(undefined));
    socket.once("error", () => done(undefined));
    socket.once("data", (data) => done(data.toString().split("\r\n")[0]));
    socket.connect(port, "127.0.0.1", () => socket.write(`${command}\r\n`));
  });
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 1));
    });
  });
}

describe("resolveRedisServerBinary", () => {
  it("uses KIRIMBAYAR_REDIS_SERVER first, and startRedisServer runs it with the no-persistence flags", async () => {
    const stand = wrapper(join(work, "env"));
    vi.stubEnv("KIRIMBAYAR_REDIS_SERVER", stand.path);
    expect(await resolveRedisServerBinary()).toEqual({ path: stand.path, source: "env" });

    const redis = await startRedisServer();
    try {
      expect(await send(redis.port, "PING")).toBe("+PONG");
      expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
      const call = readFileSync(stand.marker, "utf8");
      expect(call).toContain(`--port ${redis.port} --bind 127.0.0.1 --save  --appendonly no`);
    } finally {
      await redis.stop();
    }
  });

  it("rejects a KIRIMBAYAR_REDIS_SERVER that is not an executable, instead of falling back", async () => {
    vi.stubEnv("KIRIMBAYAR_REDIS_SERVER", join(work, "missing", "redis-server"));
    await expect(resolveRedisServerBinary()).rejects.toThrow(/KIRIMBAYAR_REDIS_SERVER=.*is not an executable file/);
  });

  it("takes redis-server from PATH when KIRIMBAYAR_REDIS_SERVER is unset", async () => {
    const stand = wrapper(join(work, "path-bin"));
    vi.stubEnv("KIRIMBAYAR_REDIS_SERVER", "");
    vi.stubEnv("PATH", `${join(work, "empty")}:${join(work, "path-bin")}:${process.env.PATH}`);
    expect(await resolveRedisServerBinary()).toEqual({ path: stand.path, source: "path" });
  });

  it("falls back to redis-memory-server's cached build when redis-server is nowhere on PATH", async () => {
    const downloadDir = join(work, "downloads");
    const stand = wrapper(join(downloadDir, "7.0.0-cached"));
    vi.stubEnv("KIRIMBAYAR_REDIS_SERVER", "");
    vi.stubEnv("PATH", join(work, "empty"));
    vi.stubEnv("REDISMS_DOWNLOAD_DIR", downloadDir);
    vi.stubEnv("REDISMS_VERSION", "7.0.0-cached");
    expect(await resolveRedisServerBinary()).toEqual({ path: stand.path, source: "redis-memory-server" });

    const redis = await startRedisServer();
    try {
      expect(await send(redis.port, "PING")).toBe("+PONG");
      expect(readFileSync(stand.marker, "utf8")).toContain(`--port ${redis.port}`);
    } finally {
      await redis.stop();
    }
  });

  it("says how to get Redis when nothing is found and the download fails", async () => {
    vi.stubEnv("KIRIMBAYAR_REDIS_SERVER", "");
    vi.stubEnv("PATH", join(work, "empty"));
    vi.stubEnv("REDISMS_DOWNLOAD_DIR", join(work, "failed-downloads"));
    vi.stubEnv("REDISMS_VERSION", "7.0.0-unreachable");
    vi.stubEnv("REDISMS_DOWNLOAD_MIRROR", `https://127.0.0.1:${await closedPort()}`);
    const failure = resolveRedisServerBinary();
    await expect(failure).rejects.toThrow(/redis-server is not on PATH/);
    await expect(failure).rejects.toThrow(/apt-get install redis-server/);
    await expect(failure).rejects.toThrow(/brew install redis/);
    await expect(failure).rejects.toThrow(/set KIRIMBAYAR_REDIS_SERVER=/);
  });
});

describe("startRedisServer", () => {
  it("restarts empty on the same port, and stop() leaves nothing answering", async () => {
    const redis = await startRedisServer();
    expect(await send(redis.port, "SET outage-key 1")).toBe("+OK");
    await redis.stop();
    expect(await send(redis.port, "PING")).toBeUndefined();

    await redis.restart();
    expect(await send(redis.port, "GET outage-key")).toBe("$-1");
    await redis.restart();
    expect(await send(redis.port, "PING")).toBe("+PONG");

    await redis.stop();
    await redis.stop();
    expect(await send(redis.port, "PING")).toBeUndefined();
  });

  it("passes extra arguments to redis-server", async () => {
    const redis = await startRedisServer({ args: ["--maxmemory", "12mb"] });
    try {
      expect(await send(redis.port, "CONFIG GET maxmemory")).toBe("*2");
    } finally {
      await redis.stop();
    }
  });

  it("gives up after startTimeoutMs on a binary that never answers, and kills it", async () => {
    const pidFile = join(work, "silent.pid");
    const silent = script(join(work, "silent"), `echo $$ > '${pidFile}'\nexec sleep 30`);
    await expect(startRedisServer({ binary: silent.path, startTimeoutMs: 300 })).rejects.toThrow(
      /did not answer PING on 127\.0\.0\.1:\d+ within 300 ms/,
    );
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it("reports a binary that exits before answering, with its output", async () => {
    const broken = script(join(work, "broken"), "echo 'bad config' >&2\nexit 3");
    await expect(startRedisServer({ binary: broken.path })).rejects.toThrow(
      /exited \(3\) before answering: bad config/,
    );
  });

  it("kills the server when the process that started it exits without stop()", async () => {
    const indexUrl = new URL("../index.js", import.meta.url).href;
    const child = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const r = await (await import(${JSON.stringify(indexUrl)})).startRedisServer();
process.stdout.write(r.port + "\\n", () => process.exit(0));`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    const port = Number(out.trim());
    expect(port).toBeGreaterThan(0);
    // SIGKILL is immediate; allow the kernel a moment to close the socket.
    let reply: string | undefined = "+PONG";
    for (let i = 0; i < 20 && reply !== undefined; i++) {
      reply = await send(port, "PING");
      if (reply !== undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(reply).toBeUndefined();
  });
});
