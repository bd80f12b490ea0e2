import type { ShutdownSteps } from "@kirimbayar/core/shutdown";
import { WebhookConfigurationError } from "@kirimbayar/core/webhooks";
import type { FastifyInstance } from "fastify";

/** How often idle keep-alive connections are closed while the app drains. */
const IDLE_SWEEP_MS = 100;

/**
 * The steps of a Fastify app in a graceful shutdown (`createGracefulShutdown` of `@kirimbayar/core/shutdown`).
 * `stop`: `app.close()`, which stops listening, answers the requests that still arrive on kept-alive connections 503
 * with `Connection: close` (`return503OnClosing`) and runs the `onClose` hooks once the requests in flight are
 * done; meanwhile each keep-alive connection is closed as soon as it is idle (Fastify closes the idle ones only
 * once, and a load balancer's connection that was busy would otherwise stay open for `keepAliveTimeout`, 72 s).
 * `abort`: close every connection still open, once the grace period is over and the claims are released.
 *
 * @example
 * process.once("SIGTERM", async () => {
 *   await shutdown.run({ ...fastifyShutdownSteps(app), close: [() => redis.quit()] });
 *   process.exit(0);
 * });
 */
export function fastifyShutdownSteps(app: FastifyInstance): Required<Pick<ShutdownSteps, "stop" | "abort">> {
  const candidate = app as Partial<FastifyInstance> | null | undefined;
  if (typeof candidate?.close !== "function" || typeof candidate.server?.closeIdleConnections !== "function") {
    throw new WebhookConfigurationError("fastifyShutdownSteps(app): pass the Fastify instance (Fastify())");
  }
  let sweep: ReturnType<typeof setInterval> | undefined;
  const stopSweeping = () => {
    clearInterval(sweep);
    sweep = undefined;
  };
  return {
    async stop() {
      sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
      try {
        await app.close();
      } finally {
        stopSweeping();
      }
    },
    abort() {
      stopSweeping();
      app.server.closeAllConnections();
    },
  };
}
