import type { ShutdownReport, ShutdownSteps } from "@kirimbayar/core/shutdown";
import { loadShopConfig, type ShopConfig, ShopConfigError } from "./config.js";
import { CONSOLE_PATH, CONSOLE_USER } from "./console.js";
import { createShopRuntime, type ShopRuntime, type ShopRuntimeOptions } from "./runtime.js";

/** A running shop, as the Express and Hono examples' `startShop` returns it. */
export interface RunningShop {
  /** Base URL the shop listens on, e.g. `http://127.0.0.1:3000`. */
  url: string;
  runtime: ShopRuntime;
  /** Stops at once: every connection closed, then the runtime (tests, the demo). */
  close(): Promise<void>;
  /**
   * The graceful shutdown (SIGTERM): `/readyz` answers 503, the server stops taking connections and deliveries
   * (503), those in flight finish within the grace period, the claims of any still running are released, then the
   * runtime closes. Resolves with what it did; runs once.
   */
  shutdown(): Promise<ShutdownReport>;
}

/** Options of the Express, Hono and Fastify examples' `startShop`. */
export interface StartShopOptions {
  /** `fetch` for the API clients (tests and the demo pass the fake provider's). */
  fetch?: typeof fetch;
  now?: () => Date;
  /** The shop's own database (see {@link ShopRuntimeOptions.database}). */
  database?: ShopRuntimeOptions["database"];
}

/** A framework's server once it listens: the port it got, and how to stop it, at once or gracefully. */
export interface ListeningServer {
  port: number;
  /** Closes every connection now and stops listening. */
  close(): Promise<void>;
  /** The server's part of a graceful shutdown: stop taking connections (and wait for them), then cut the rest. */
  shutdownSteps: Required<Pick<ShutdownSteps, "stop" | "abort">>;
}

/**
 * The start-up sequence of the Express and Hono shops; `listen` is the framework's part. Builds the {@link ShopRuntime}
 * (whose public URL is `PUBLIC_BASE_URL`, or else the address the server listens on), has `listen` serve it on
 * `config.host:config.port` (port 0 picks a free one), then registers the order webhook when the order service is
 * configured. When registering fails, it closes the server and the runtime and rethrows.
 *
 * @example
 * const shop = await serveShop(config, {}, async (runtime) => {
 *   const server = createApp(runtime).listen(config.port, config.host);
 *   await once(server, "listening");
 *   const close = () => promisify(server.close.bind(server))();
 *   return { port: (server.address() as AddressInfo).port, close, shutdownSteps: nodeServerSteps(server) };
 * });
 * console.log(`shop on ${shop.url}`);
 */
export async function serveShop(
  config: ShopConfig,
  options: StartShopOptions,
  listen: (runtime: ShopRuntime) => Promise<ListeningServer>,
): Promise<RunningShop> {
  let listeningUrl = "";
  const runtime = await createShopRuntime(config, {
    ...options,
    publicBaseUrl: () => config.publicBaseUrl ?? listeningUrl,
  });
  const server = await listen(runtime);
  listeningUrl = `http://${config.host}:${server.port}`;
  const close = async () => {
    await server.close();
    await runtime.close();
  };
  // The server and the inbox worker stop taking work together; what still runs after the grace period is cut in both.
  const shutdown = () =>
    runtime.shutdown.run({
      stop: () => Promise.all([server.shutdownSteps.stop(), runtime.inboxWorker?.stop()]),
      abort: () => Promise.all([server.shutdownSteps.abort(), runtime.inboxWorker?.abort()]),
      close: [() => runtime.close()],
    });
  try {
    await runtime.registerOrderWebhook();
  } catch (error) {
    await close();
    throw error;
  }
  runtime.startReconciling();
  try {
    await runtime.startInboxWorker();
  } catch (error) {
    await close();
    throw error;
  }
  return { url: listeningUrl, runtime, close, shutdown };
}

/**
 * A shop's `main`: starts it from the environment variables (a bad configuration prints which variables are wrong and
 * exits 1), logs where it listens, and shuts it down gracefully on SIGINT or SIGTERM (see `RunningShop.shutdown`),
 * then exits.
 *
 * @example
 * await runShopFromEnv("Express", startShop);
 */
export async function runShopFromEnv(
  framework: string,
  startShop: (config: ShopConfig) => Promise<RunningShop>,
): Promise<void> {
  try {
    const shop = await startShop(loadShopConfig(process.env));
    console.log(`${framework} shop listening on ${shop.url} (webhook idempotency store: ${shop.runtime.storeKind})`);
    console.log(consoleGreeting(shop.url, shop.runtime.config));
    onShutdownSignal(framework, () => shop.shutdown());
  } catch (error) {
    console.error(error instanceof ShopConfigError ? error.message : error);
    process.exit(1);
  }
}

/**
 * Runs `shutdown` on the first SIGTERM or SIGINT (a second signal while it runs changes nothing), logs what it did
 * on one line, and exits: 0 once it finished, 1 if it threw. The shops' `main` and the NestJS shop's use it.
 *
 * @example
 * onShutdownSignal("Express", () => shop.shutdown());
 */
export function onShutdownSignal(framework: string, shutdown: () => Promise<ShutdownReport | undefined>): void {
  let started = false;
  const stop = (signal: NodeJS.Signals) => {
    if (started) return;
    started = true;
    console.log(`${framework} shop: ${signal}, shutting down gracefully`);
    shutdown().then(
      (report) => {
        if (report !== undefined) console.log(`${framework} shop stopped: ${JSON.stringify(report)}`);
        process.exit(0);
      },
      (error: unknown) => {
        console.error(`${framework} shop: the shutdown failed`, error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

/**
 * The start-up line naming the webhook console: its URL and user, and the password when it was generated at start
 * (it is printed nowhere else); a password from `KIRIMBAYAR_CONSOLE_PASSWORD` is never printed.
 *
 * @example
 * console.log(consoleGreeting(shop.url, config)); // "Webhook console: http://127.0.0.1:3000/kirimbayar/console ..."
 */
export function consoleGreeting(shopUrl: string, config: ShopConfig): string {
  const login = config.console.generated
    ? `user ${CONSOLE_USER}, password ${config.console.password} (generated at start; set KIRIMBAYAR_CONSOLE_PASSWORD to choose one)`
    : `user ${CONSOLE_USER}, password from KIRIMBAYAR_CONSOLE_PASSWORD`;
  return `Webhook console: ${shopUrl}${CONSOLE_PATH} (${login})`;
}
