import { type ChildProcess, spawn } from "node:child_process";

/** A runtime started as a child process that printed `listening <port>`. */
export interface ListeningChild {
  port: number;
  /** Everything the child wrote so far, for failure messages. */
  output(): string;
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. Safe to call twice. */
  close(): Promise<void>;
}

export interface ChildOptions {
  /** For messages, e.g. "bun". */
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** How long the child may take to print `listening <port>` before it is killed. */
  startTimeoutMs: number;
  /** Hard limit on the child's life: it is killed then even if nobody closed it (a test that hung). */
  lifetimeMs: number;
  graceMs?: number;
}

const LISTENING = /^listening (\d+)$/m;

/**
 * Spawns `command` (never through a shell, so the pid is the runtime itself) and resolves once it printed
 * `listening <port>` on stdout. Rejects with the child's output when it exits or stays silent too long; the child is
 * killed on every path that does not hand it to the caller, and in any case after `lifetimeMs`.
 */
export function startListeningChild(options: ChildOptions): Promise<ListeningChild> {
  const { name, graceMs = 3_000 } = options;
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
  const lifetime = setTimeout(() => kill(child, "SIGKILL"), options.lifetimeMs);
  lifetime.unref();
  exited.then(() => clearTimeout(lifetime));

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        kill(child, "SIGTERM");
        const grace = setTimeout(() => kill(child, "SIGKILL"), graceMs);
        await exited;
        clearTimeout(grace);
      }
    })();
    return closing;
  };

  return new Promise<ListeningChild>((resolve, reject) => {
    let settled = false;
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(startTimer);
      void close().then(() => reject(new Error(`${name}: ${reason}\n--- output ---\n${output}`)));
    };
    const startTimer = setTimeout(
      () => fail(`did not print "listening <port>" within ${options.startTimeoutMs} ms`),
      options.startTimeoutMs,
    );
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const match = LISTENING.exec(output);
      if (match === null || settled) return;
      settled = true;
      clearTimeout(startTimer);
      resolve({ port: Number(match[1]), output: () => output, close });
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.once("error", (error) => fail(`could not be started: ${error.message}`));
    child.once("exit", (code, signal) => fail(`exited before listening (code ${code}, signal ${signal})`));
  });
}

function kill(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
}
