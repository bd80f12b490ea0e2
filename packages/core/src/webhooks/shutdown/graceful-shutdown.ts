// Through the webhooks entry, not its modules: see claim-tracker.ts.
import {
  type AnyLogger,
  type IdempotencyStore,
  WebhookConfigurationError,
  type WebhookLogger,
  WebhookProcessingError,
  webhookLoggerOf,
} from "../../webhooks.js";
import { ClaimTracker } from "./claim-tracker.js";

/** Default {@link GracefulShutdownOptions.graceMs}: 10 s, well inside Kubernetes' 30 s and most PaaS' stop timeouts. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
/** Default {@link GracefulShutdownOptions.stepTimeoutMs}. */
export const DEFAULT_SHUTDOWN_STEP_TIMEOUT_MS = 5_000;
const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Options of {@link createGracefulShutdown}. */
export interface GracefulShutdownOptions {
  /**
   * How long the deliveries in flight may run on once the process stops taking new ones (default 10,000 ms). Those
   * still running then have their claims released (or their transactions ended without commit), so that the
   * provider's retry is applied at once by another instance. Keep it below your platform's stop timeout
   * (Kubernetes' `terminationGracePeriodSeconds`, 30 s by default) minus `unreadyDelayMs`.
   */
  graceMs?: number;
  /**
   * How long the process keeps serving, after {@link GracefulShutdown.ready} turned `false`, before it stops taking
   * deliveries (default 0): long enough for the load balancer's health check to see it (check interval × fall
   * count) and route new requests elsewhere. 0 when nothing checks readiness (nginx without active checks).
   */
  unreadyDelayMs?: number;
  /** Time limit of each later step: releasing the claims, `abort`, each `close` step (default 5,000 ms). */
  stepTimeoutMs?: number;
  /** How long a release at shutdown keeps the event's attempt count (default 24 h, the receivers' retention). */
  retentionMs?: number;
  /** Where the shutdown reports (default `console`): a console-style logger or a pino-style one. */
  logger?: AnyLogger;
}

/** Where a shutdown is: see {@link GracefulShutdown.run} for the sequence. */
export type ShutdownPhase = "serving" | "unready" | "draining" | "releasing" | "closing" | "closed";

/** What the app does at each point of {@link GracefulShutdown.run}; every step is optional. */
export interface ShutdownSteps {
  /**
   * Stop taking new work: close the listening server (`server.close()`, and idle keep-alive connections), stop the
   * inbox worker (`worker.stop()`). May return a promise that settles once the work in flight is done; the shutdown
   * waits for it (and for the claims held) at most `graceMs`.
   */
  stop?: () => unknown;
  /**
   * Once the grace period is over and the claims are released: cut what still runs (`server.closeAllConnections()`,
   * `worker.abort()`).
   */
  abort?: () => unknown;
  /** Then close, one after the other, what the app opened: the reconciler, the journal, the stores' clients, pools. */
  close?: readonly (() => unknown)[];
}

/** What a shutdown did, once {@link GracefulShutdown.run} resolves. */
export interface ShutdownReport {
  /** Claims and transactions the process held when it stopped taking deliveries. */
  readonly heldAtStop: number;
  /**
   * Those still held when the grace period ended: their deliveries outlasted it. Handlers watching `signal` let go
   * of theirs themselves; the shutdown released the rest (`released`, `rolledBack`).
   */
  readonly heldAtGraceEnd: number;
  /** Claims of deliveries still running after `graceMs`, released so another instance runs them now. */
  readonly released: number;
  /** Delivery transactions still open after `graceMs`, ended without their commit. */
  readonly rolledBack: number;
  /** Claims the store did not release within `stepTimeoutMs`: their lease ends them. */
  readonly releaseFailed: number;
  /** Claims refused while shutting down (each delivery answered 503, to be retried elsewhere). */
  readonly refused: number;
  /** From the stop to the end of the drain (everything finished, or the grace period over). */
  readonly drainMs: number;
  /** From `run()` to its end. */
  readonly totalMs: number;
  /** Steps that threw, rejected or ran out of time (`stop`, `abort`, `close[0]`, ...); each was logged. */
  readonly failedSteps: readonly string[];
}

/**
 * A process's graceful shutdown, for the webhook receivers behind a load balancer. Pass each idempotency store
 * through {@link GracefulShutdown.track} before the receivers get it, serve {@link GracefulShutdown.ready} as the
 * readiness probe, and call {@link GracefulShutdown.run} on SIGTERM.
 */
export interface GracefulShutdown {
  /** `true` until shutdown begins: answer the readiness probe 503 once it is `false`. */
  readonly ready: boolean;
  readonly phase: ShutdownPhase;
  /**
   * Aborted when the grace period ends, just before the claims still held are released: pass it (or
   * `AbortSignal.any([ctx.signal, shutdown.signal])`) to the calls your handlers await, so that a handler whose
   * claim is about to be released stops instead of applying its effect beside the retry.
   */
  readonly signal: AbortSignal;
  /** Claims and transactions held now through the tracked stores (the deliveries past their claim). */
  readonly held: number;
  /**
   * `store`, tracked: hand this to the receivers (and the inbox worker's receivers) instead of the store. It is the
   * same store to every caller (its other methods, `instanceof`, a transactional store's `begin`) except that the
   * shutdown knows which claims and transactions this process holds, and that once shutdown has begun a new claim
   * is refused ({@link ShutdownInProgressError}: the receiver answers 503 and runs nothing).
   */
  track<S extends IdempotencyStore>(store: S): S;
  /**
   * Runs the shutdown once (a second call returns the first one's promise):
   * 1. `ready` turns `false`; the process keeps serving for `unreadyDelayMs`;
   * 2. new claims are refused (503), and `stop` runs;
   * 3. the deliveries in flight finish, for at most `graceMs`;
   * 4. `signal` is aborted, then the claims still held are released and the open transactions ended without commit:
   *    no key is left in progress, so the provider's retry is applied at once by another instance;
   * 5. `abort` runs; the shutdown waits at most `stepTimeoutMs` more for `stop` to settle;
   * 6. the `close` steps run, in order.
   * Never rejects for a failing step (it is logged and named in the report); rejects with a
   * `WebhookConfigurationError` for steps that are not functions, before doing anything.
   */
  run(steps?: ShutdownSteps): Promise<ShutdownReport>;
}

/**
 * Creates the graceful shutdown of a process that receives webhooks. Framework-neutral: the adapters' helpers
 * (`nodeServerSteps` for a Node `http.Server` such as Express's or Hono's, `fastifySteps`, NestJS's
 * `KirimbayarShutdownModule`) give the steps of each server.
 *
 * @example
 * const shutdown = createGracefulShutdown({ graceMs: 10_000, unreadyDelayMs: 2_000 });
 * const store = shutdown.track(new RedisIdempotencyStore({ client: redis }));
 * const qris = createWebhookReceiver({ source: "qris", verify, idempotency: { store } });
 * app.get("/readyz", (_req, res) => res.status(shutdown.ready ? 200 : 503).end());
 * const server = app.listen(3000);
 * process.once("SIGTERM", async () => {
 *   await shutdown.run({ ...nodeServerSteps(server), close: [() => redis.quit()] });
 *   process.exit(0);
 * });
 */
export function createGracefulShutdown(options: GracefulShutdownOptions = {}): GracefulShutdown {
  const graceMs = duration("graceMs", options.graceMs ?? DEFAULT_SHUTDOWN_GRACE_MS);
  const unreadyDelayMs = duration("unreadyDelayMs", options.unreadyDelayMs ?? 0);
  const stepTimeoutMs = duration("stepTimeoutMs", options.stepTimeoutMs ?? DEFAULT_SHUTDOWN_STEP_TIMEOUT_MS);
  const retentionMs = duration("retentionMs", options.retentionMs ?? DEFAULT_RETENTION_MS);
  const logger: WebhookLogger = options.logger === undefined ? consoleLogger : webhookLoggerOf(options.logger);
  const tracker = new ClaimTracker();
  const graceOver = new AbortController();
  let phase: ShutdownPhase = "serving";
  let running: Promise<ShutdownReport> | undefined;

  async function sequence(steps: ShutdownSteps): Promise<ShutdownReport> {
    const startedAt = now();
    const failedSteps: string[] = [];
    // A step that throws, rejects or hangs is logged and named; the shutdown goes on regardless.
    const step = async (name: string, work: (() => unknown) | Promise<unknown> | undefined, limitMs: number) => {
      if (work === undefined) return;
      const outcome = await settleWithin(typeof work === "function" ? attempt(work) : work, limitMs);
      if (outcome === "done") return;
      failedSteps.push(name);
      const problem = outcome === "timeout" ? `did not finish within ${limitMs} ms` : "failed";
      logger.error?.(`Graceful shutdown: the ${name} step ${problem}`, outcome === "timeout" ? {} : outcome);
    };

    phase = "unready";
    if (unreadyDelayMs > 0) await sleep(unreadyDelayMs);

    phase = "draining";
    tracker.close();
    const heldAtStop = tracker.held;
    const stopping = steps.stop === undefined ? Promise.resolve() : attempt(steps.stop);
    const drainStartedAt = now();
    await settleWithin(Promise.all([stopping.catch(() => {}), tracker.idle()]), graceMs);

    phase = "releasing";
    const heldAtGraceEnd = tracker.held;
    graceOver.abort(
      new WebhookProcessingError("The shutdown's grace period ended; the delivery will be retried elsewhere", {
        code: "shutdown_grace_ended",
        status: 503,
      }),
    );
    // One turn for handlers that watch `signal` to unwind (and release their own claims) before the rest is let go.
    await sleep(0);
    const { released, rolledBack, failed } = await tracker.releaseAll(stepTimeoutMs);
    const drainMs = now() - drainStartedAt;
    if (heldAtGraceEnd > 0) {
      logger.warn?.(
        `Graceful shutdown: ${heldAtGraceEnd} deliveries were still running after ${graceMs} ms; their claims were ` +
          "let go so that another instance applies their retry",
        { released, rolledBack, releaseFailed: failed },
      );
    }
    await step("abort", steps.abort, stepTimeoutMs);
    await step("stop", stopping, stepTimeoutMs);

    phase = "closing";
    for (const [index, close] of (steps.close ?? []).entries()) await step(`close[${index}]`, close, stepTimeoutMs);
    phase = "closed";
    return {
      heldAtStop,
      heldAtGraceEnd,
      released,
      rolledBack,
      releaseFailed: failed,
      refused: tracker.refused,
      drainMs: Math.round(drainMs),
      totalMs: Math.round(now() - startedAt),
      failedSteps,
    };
  }

  return {
    get ready() {
      return phase === "serving";
    },
    get phase() {
      return phase;
    },
    signal: graceOver.signal,
    get held() {
      return tracker.held;
    },
    track(store) {
      if (typeof (store as Partial<IdempotencyStore> | null)?.claim !== "function") {
        throw new WebhookConfigurationError(
          "createGracefulShutdown: track(store) needs an idempotency store (claim, complete, release)",
        );
      }
      return tracker.track(store, retentionMs);
    },
    run(steps = {}) {
      if (running !== undefined) return running;
      const problem = stepsProblem(steps);
      if (problem !== undefined) return Promise.reject(new WebhookConfigurationError(problem));
      running = sequence(steps);
      return running;
    },
  };
}

function stepsProblem(steps: ShutdownSteps): string | undefined {
  if (steps === null || typeof steps !== "object") return "shutdown.run(steps): steps must be an object";
  for (const name of ["stop", "abort"] as const) {
    if (steps[name] !== undefined && typeof steps[name] !== "function") {
      return `shutdown.run(steps): ${name} must be a function`;
    }
  }
  const close = steps.close;
  if (close !== undefined && (!Array.isArray(close) || close.some((step) => typeof step !== "function"))) {
    return "shutdown.run(steps): close must be an array of functions";
  }
  return undefined;
}

function duration(name: string, value: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 2_147_483_647) {
    throw new WebhookConfigurationError(
      `createGracefulShutdown: ${name} must be a number of milliseconds from 0 to 2147483647`,
    );
  }
  return value;
}

// A step's call as a promise: a synchronous throw becomes a rejection.
function attempt(work: () => unknown): Promise<unknown> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** `"done"`, `"timeout"`, or the details of the failure. */
function settleWithin(pending: Promise<unknown>, limitMs: number): Promise<"done" | "timeout" | { error: unknown }> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("timeout"), limitMs);
    pending.then(
      () => {
        clearTimeout(timer);
        resolve("done");
      },
      (error: unknown) => {
        clearTimeout(timer);
        resolve({ error });
      },
    );
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const now = (): number => globalThis.performance.now();

const consoleLogger: WebhookLogger = {
  warn: (message, details) => console.warn(`[kirimbayar] ${message}`, details ?? ""),
  error: (message, details) => console.error(`[kirimbayar] ${message}`, details ?? ""),
};
