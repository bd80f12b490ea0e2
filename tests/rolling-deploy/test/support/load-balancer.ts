// A real load balancer in front of the shop instances, as in production: Debian's nginx 1.22 or HAProxy 2.6, run as
// an unprivileged user from a config in a temp dir, in the foreground, on a free loopback port. The settings are the
// ones docs/guides/operations/deploying-shutdown.md gives.
import { type ChildProcess, spawn } from "node:child_process";
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type LoadBalancerKind = "nginx" | "haproxy";

/** A running load balancer. */
export interface LoadBalancer {
  readonly kind: LoadBalancerKind;
  readonly url: string;
  /** The tail of its log (errors, and for HAProxy the server state changes). */
  logs(): string;
  stop(): Promise<void>;
}

/** Options of {@link startLoadBalancer}. */
export interface LoadBalancerOptions {
  /** The instances' ports; one not listening yet is simply down until it is. */
  readonly backends: readonly number[];
  /** HAProxy's health-check interval (ms) on `/readyz`; default 250. */
  readonly checkIntervalMs?: number;
}

/** A free port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The unprivileged account the balancer runs as when we are root (nginx and HAProxy refuse nothing, but should not run as root). */
function unprivileged(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("nobody:"));
  if (!line) throw new Error("running as root and no `nobody` user to run the load balancer as");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.connect(port, "127.0.0.1", () => done(true));
  });
}

/**
 * nginx: no active health checks in the open-source build, so it learns an instance is gone from the connection
 * (refused, reset) and retries the next one; a 503 (an instance refusing new deliveries while it drains) is retried
 * on the next instance too, POST included (`non_idempotent`: the receiver's 503 means nothing was applied).
 */
export function nginxConfig(dir: string, port: number, backends: readonly number[]): string {
  const servers = backends.map((backend) => `    server 127.0.0.1:${backend} max_fails=1 fail_timeout=1s;`).join("\n");
  return `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream shop {
${servers}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://shop;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_next_upstream error timeout http_502 http_503 non_idempotent;
      proxy_next_upstream_tries 3;
      proxy_next_upstream_timeout 10s;
      proxy_connect_timeout 1s;
      proxy_read_timeout 30s;
    }
  }
}
`;
}

/**
 * HAProxy: checks `/readyz` (so an instance that begins its shutdown is taken out before it stops listening),
 * buffers request bodies so that it can retry a POST, and retries on the next instance a refused connection, a
 * connection closed without an answer, and a 503.
 */
export function haproxyConfig(dir: string, port: number, backends: readonly number[], checkIntervalMs: number): string {
  const servers = backends.map((backend, index) => `  server s${index} 127.0.0.1:${backend} check`).join("\n");
  return `global
  maxconn 2000
  pidfile ${dir}/haproxy.pid
  log stderr format raw local0 notice

defaults
  mode http
  log global
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  timeout http-keep-alive 10s
  timeout check 2s
  retries 3
  option redispatch 1
  option http-buffer-request
  retry-on conn-failure empty-response 503

frontend shop_in
  bind 127.0.0.1:${port}
  default_backend shop

backend shop
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter ${checkIntervalMs} fastinter ${checkIntervalMs} downinter ${checkIntervalMs} rise 1 fall 2
  http-reuse safe
${servers}
`;
}

/** Starts nginx or HAProxy in front of `backends`. */
export async function startLoadBalancer(kind: LoadBalancerKind, options: LoadBalancerOptions): Promise<LoadBalancer> {
  const user = unprivileged();
  const dir = mkdtempSync(join(tmpdir(), `kirimbayar-${kind}-`));
  for (const sub of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(join(dir, sub));
  const port = await freePort();
  const config = join(dir, `${kind}.conf`);
  writeFileSync(
    config,
    kind === "nginx"
      ? nginxConfig(dir, port, options.backends)
      : haproxyConfig(dir, port, options.backends, options.checkIntervalMs ?? 250),
  );
  if (user) {
    for (const path of [dir, config, ...["body", "proxy", "fastcgi", "uwsgi", "scgi"].map((sub) => join(dir, sub))]) {
      chownSync(path, user.uid, user.gid);
    }
  }
  const args = kind === "nginx" ? ["-p", dir, "-c", config, "-e", join(dir, "error.log")] : ["-f", config, "-db"];
  const child: ChildProcess = spawn(kind === "nginx" ? "/usr/sbin/nginx" : "/usr/sbin/haproxy", args, {
    ...(user ?? {}),
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Not left behind by a test process that exits without stopping it.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  child.once("exit", () => process.off("exit", killOnExit));
  let logs = "";
  const keep = (chunk: Buffer) => {
    logs = (logs + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await canConnect(port))) {
    if (child.exitCode !== null) throw new Error(`${kind} exited at start:\n${logs}${errorLog(dir)}`);
    if (Date.now() > deadline) throw new Error(`${kind} did not listen within 10 s:\n${logs}${errorLog(dir)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    kind,
    url: `http://127.0.0.1:${port}`,
    logs: () => logs + errorLog(dir),
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function errorLog(dir: string): string {
  try {
    return readFileSync(join(dir, "error.log"), "utf8").slice(-10_000);
  } catch {
    return "";
  }
}
