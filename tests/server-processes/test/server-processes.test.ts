import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  canConnect,
  findExecutable,
  freePort,
  ownedTempDir,
  removeDir,
  type ServerProcess,
  serverProcess,
  type UnixUser,
  unprivilegedUser,
} from "../index.js";

// A stand-in server: listens on the port it is given at once, but says it is ready on stderr only after `delayMs`
// (as PostgreSQL accepts connections while it still recovers); ignores SIGTERM when asked to (a server that hangs on
// shutdown).
const SERVER = `
const [port, delayMs, ignoreTerm] = process.argv.slice(1);
if (ignoreTerm === "1") process.on("SIGTERM", () => {});
process.stderr.write("starting\\n");
require("node:net").createServer((socket) => socket.end()).listen(Number(port), "127.0.0.1", () => {
  setTimeout(() => process.stderr.write("ready to serve\\n"), Number(delayMs));
});
`;

const started: ServerProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.stop("SIGKILL")));
  for (const dir of dirs.splice(0)) removeDir(dir);
});

async function standIn(
  options: { delayMs?: number; ignoreTerm?: boolean; startTimeoutMs?: number; user?: UnixUser | undefined } = {},
) {
  const port = await freePort();
  const cwd = ownedTempDir("kirimbayar-processes-test-", options.user);
  dirs.push(cwd);
  const server = serverProcess({
    name: "stand-in",
    command: process.execPath,
    args: ["-e", SERVER, String(port), String(options.delayMs ?? 0), options.ignoreTerm ? "1" : "0"],
    cwd,
    port,
    ready: /ready to serve/,
    startTimeoutMs: options.startTimeoutMs ?? 5_000,
    stopGraceMs: 300,
    user: options.user,
  });
  started.push(server);
  return { server, port };
}

describe("freePort", () => {
  it("gives a loopback port another server can bind", async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });
});

describe("serverProcess", () => {
  it("resolves start() only once the server said it is ready and takes connections", async () => {
    const { server } = await standIn({ delayMs: 300 });
    const before = performance.now();
    await server.start();
    expect(performance.now() - before).toBeGreaterThanOrEqual(250);
    expect(server.child?.exitCode).toBeNull();
    expect(server.logs()).toContain("ready to serve");
  });

  it("starts again on the same port after a kill, waiting for the new start's readiness", async () => {
    const { server, port } = await standIn({ delayMs: 200 });
    await server.start();
    const first = server.child?.pid;
    await server.stop("SIGKILL");
    expect(server.child).toBeUndefined();
    const before = performance.now();
    await server.start();
    // The first start's "ready" in the logs does not count for the second.
    expect(performance.now() - before).toBeGreaterThanOrEqual(150);
    expect(server.child?.pid).not.toBe(first);
    expect(server.logs().match(/ready to serve/g)).toHaveLength(2);
    expect(await canConnect(port)).toBe(true);
  });

  it("SIGKILLs a server that ignores the stop signal once the grace time is over", async () => {
    const { server } = await standIn({ ignoreTerm: true });
    await server.start();
    const child = server.child;
    const before = performance.now();
    await server.stop("SIGTERM");
    expect(performance.now() - before).toBeGreaterThanOrEqual(250);
    expect(child?.signalCode).toBe("SIGKILL");
  });

  it("resumes a frozen server so that it acts on the stop signal", async () => {
    const { server } = await standIn();
    await server.start();
    const child = server.child;
    child?.kill("SIGSTOP");
    await server.stop("SIGTERM");
    expect(child?.signalCode).toBe("SIGTERM");
  });

  it("throws with the output when the server exits while starting, and when it is not ready in time", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "kirimbayar-processes-test-"));
    dirs.push(cwd);
    const exits = serverProcess({
      name: "quitter",
      command: process.execPath,
      args: ["-e", 'process.stderr.write("no config\\n"); process.exit(3)'],
      cwd,
      port: await freePort(),
      ready: /ready/,
      startTimeoutMs: 5_000,
      stopGraceMs: 300,
    });
    await expect(exits.start()).rejects.toThrow(/^quitter exited while starting:\nno config/);
    const { server } = await standIn({ delayMs: 5_000, startTimeoutMs: 300 });
    await expect(server.start()).rejects.toThrow(/^stand-in did not start within 300 ms:\nstarting/);
  });
});

describe("unprivilegedUser and ownedTempDir", () => {
  const root = process.getuid?.() === 0;

  it("names the account a server runs as under root, and none otherwise", () => {
    const user = unprivilegedUser("nobody", "a server");
    if (!root) {
      expect(user).toBeUndefined();
      return;
    }
    const nobody = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .find((line) => line.startsWith("nobody:"))
      ?.split(":");
    expect(user).toEqual({ uid: Number(nobody?.[2]), gid: Number(nobody?.[3]) });
    expect(() => unprivilegedUser("kirimbayar-no-such-account", "PostgreSQL", "Install it.")).toThrow(
      "running as root and no `kirimbayar-no-such-account` user to run PostgreSQL as. Install it.",
    );
  });

  it("runs the server as that account under root", async () => {
    const user = unprivilegedUser("nobody", "a server");
    const { server } = await standIn({ user });
    await server.start();
    const status = readFileSync(`/proc/${server.child?.pid}/status`, "utf8");
    const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
    expect(uid).toBe(user?.uid ?? process.getuid?.());
  });

  it("gives the temp dir to that account, and removes it whole", () => {
    const user = unprivilegedUser("nobody", "a server");
    const dir = ownedTempDir("kirimbayar-processes-test-", user);
    dirs.push(dir);
    expect(statSync(dir).uid).toBe(user?.uid ?? process.getuid?.());
    removeDir(dir);
    expect(existsSync(dir)).toBe(false);
    removeDir(dir);
  });

  it("finds an executable in the directories given, in order", () => {
    expect(findExecutable("node", ["/nonexistent-kirimbayar", join(process.execPath, "..")])).toBe(process.execPath);
    expect(findExecutable("kirimbayar-no-such-binary", [join(process.execPath, "..")])).toBeUndefined();
  });
});
