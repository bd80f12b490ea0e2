import { WebhookConfigurationError } from "../../webhooks.js";
import type { ShutdownSteps } from "./graceful-shutdown.js";

/** A response as a Node `http.Server` hands it to its `request` listeners: what closing needs of it. */
export interface NodeResponseLike {
  readonly headersSent: boolean;
  setHeader(name: string, value: string): unknown;
}

/**
 * The part of a Node `http.Server` (or `https.Server`) that closing uses, typed structurally so that core stays
 * free of `node:` imports: Express's `app.listen()`, `@hono/node-server`'s `serve()` and NestJS's
 * `app.getHttpServer()` all return one.
 */
export interface NodeServerLike {
  close(callback?: (error?: Error) => void): unknown;
  closeIdleConnections?(): void;
  closeAllConnections?(): void;
  prependListener(event: "request", listener: (request: unknown, response: NodeResponseLike) => void): unknown;
}

/** How often idle keep-alive connections are closed while the server drains. */
const IDLE_SWEEP_MS = 100;

/**
 * The {@link ShutdownSteps} of a Node HTTP server. `stop`: stop listening, close the idle keep-alive connections at
 * once and each busy one as soon as its response is sent (a request arriving on it meanwhile is answered with
 * `Connection: close`, so the load balancer opens its next connection to another instance); settles once every
 * connection is closed. `abort`: close every connection left (after the grace period, once the claims are
 * released).
 *
 * Node's `server.close()` alone keeps serving requests on the keep-alive connections it already has, which a load
 * balancer keeps open and reuses: the process would take deliveries until the end.
 *
 * @example
 * const server = app.listen(3000);
 * process.once("SIGTERM", () => shutdown.run({ ...nodeServerSteps(server), close: [() => pool.end()] }));
 */
export function nodeServerSteps(server: NodeServerLike): Required<Pick<ShutdownSteps, "stop" | "abort">> {
  const candidate = server as Partial<NodeServerLike> | null | undefined;
  if (typeof candidate?.close !== "function" || typeof candidate.prependListener !== "function") {
    throw new WebhookConfigurationError(
      "nodeServerSteps(server): pass the Node http.Server that listens (app.listen(), serve(), app.getHttpServer())",
    );
  }
  let sweep: ReturnType<typeof setInterval> | undefined;
  const stopSweeping = () => {
    if (sweep !== undefined) clearInterval(sweep);
    sweep = undefined;
  };
  return {
    stop() {
      server.prependListener("request", (_request, response) => {
        if (!response.headersSent) response.setHeader("connection", "close");
      });
      const closed = new Promise<void>((resolve) => {
        // An error here only says the server was not listening (closed before): nothing more to wait for.
        server.close(() => {
          stopSweeping();
          resolve();
        });
      });
      server.closeIdleConnections?.();
      // A busy connection turns idle once its response is sent; it is closed at the next sweep.
      sweep = setInterval(() => server.closeIdleConnections?.(), IDLE_SWEEP_MS);
      return closed;
    },
    abort() {
      stopSweeping();
      server.closeAllConnections?.();
    },
  };
}
