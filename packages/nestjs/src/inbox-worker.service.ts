import { WebhookConfigurationError } from "@kirimbayar/core/webhooks";
// The worker is imported lazily, when an app with `inbox` starts it, so that apps without the inbox load nothing of
// `@kirimbayar/inbox` (an optional peer); its types appear only inside this file's code, never in its declarations.
import type { InboxQueue } from "@kirimbayar/inbox";
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  Optional,
} from "@nestjs/common";
import type { KirimbayarInboxQueue, KirimbayarModuleOptions } from "./options.js";
import { KIRIMBAYAR_OPTIONS_FOR_INBOX_WORKER, KIRIMBAYAR_SHUTDOWN, KIRIMBAYAR_WEBHOOK_ROUTES } from "./tokens.js";
import type { WebhookRoutes } from "./webhook-routes.js";

/**
 * The inbox worker of the module (`startInboxWorker` from `@kirimbayar/inbox`), injectable as
 * `KirimbayarInboxWorker`. With `inbox: { queue }` in the module options it starts once the app has bootstrapped
 * (after the decorated handlers were registered) on the module's own receivers, and stops before the app shuts down
 * (`beforeApplicationShutdown`: it takes no new events and waits for those in flight, while the queue's connection
 * is still open; `app.enableShutdownHooks()` for signals). With `worker: false` it does not start: that instance
 * only enqueues.
 *
 * @example
 * constructor(@Inject(KirimbayarInboxWorker) private readonly inbox: KirimbayarInboxWorker) {}
 * const stats = await this.inbox.queue?.stats(); // { waiting, active, deadLetters, oldestWaitingAgeMs }
 */
@Injectable()
export class KirimbayarInboxWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly #options: KirimbayarModuleOptions;
  readonly #routes: WebhookRoutes;
  #worker: Promise<RunningWorker> | undefined;
  /** The worker a `stop()` is stopping, for an `abort()` meanwhile (a graceful shutdown's). */
  #stopping: Promise<RunningWorker | undefined> | undefined;

  readonly #gracefulShutdown: boolean;

  constructor(
    @Inject(KIRIMBAYAR_OPTIONS_FOR_INBOX_WORKER) options: KirimbayarModuleOptions,
    @Inject(KIRIMBAYAR_WEBHOOK_ROUTES) routes: WebhookRoutes,
    // Present with KirimbayarShutdownModule, which stops this worker itself, in step with its drain.
    @Optional() @Inject(KIRIMBAYAR_SHUTDOWN) gracefulShutdown?: unknown,
  ) {
    this.#options = options;
    this.#routes = routes;
    this.#gracefulShutdown = gracefulShutdown !== undefined;
  }

  /** The module's `inbox.queue` (for `stats()`, dead letters and replays), or `undefined` without an inbox. */
  get queue(): KirimbayarInboxQueue | undefined {
    return this.#options.inbox?.queue;
  }

  /** Whether this instance's worker is started (or starting). */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    const inbox = this.#options.inbox;
    if (inbox === undefined || inbox.worker === false) return;
    await this.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    // Nest runs this hook module by module in an order an app does not choose: with the graceful shutdown, stopping
    // here first would wait for the events in flight before the drain even began.
    if (this.#gracefulShutdown) return;
    await this.stop();
  }

  /**
   * Starts the worker now, if it is not running: what bootstrap does unless `worker: false` (which this overrides,
   * with `startInboxWorker`'s defaults). Throws without `inbox` in the module options.
   */
  async start(): Promise<void> {
    if (this.#worker === undefined) {
      const starting = this.#start();
      this.#worker = starting;
      // A start that failed leaves the worker stopped (the error reaches the caller below).
      starting.catch(() => {
        if (this.#worker === starting) this.#worker = undefined;
      });
    }
    await this.#worker;
  }

  /** Stops the worker: no new events; those in flight may finish within `worker.stopTimeoutMs` (default 30 s). */
  async stop(): Promise<void> {
    const starting = this.#worker;
    if (starting === undefined) return;
    this.#worker = undefined;
    this.#stopping = starting.catch(() => undefined);
    const worker = await this.#stopping;
    const settings = this.#options.inbox?.worker;
    const timeoutMs = settings === false ? undefined : settings?.stopTimeoutMs;
    await worker?.stop(timeoutMs === undefined ? {} : { timeoutMs });
  }

  /**
   * Hands the events still running back to the queue at once (`InboxWorker.abort`), so that a pending `stop()`
   * ends now: the graceful shutdown (`KirimbayarShutdownModule`) calls it once the grace period is over and the
   * claims are released.
   */
  async abort(): Promise<void> {
    const worker = await (this.#stopping ?? this.#worker?.catch(() => undefined));
    await worker?.abort();
  }

  async #start(): Promise<RunningWorker> {
    const inbox = this.#options.inbox;
    if (inbox === undefined) {
      throw new WebhookConfigurationError("KirimbayarInboxWorker: the module options have no inbox to work on.");
    }
    if (typeof (inbox.queue as Partial<KirimbayarInboxQueue> | undefined)?.consume !== "function") {
      throw new WebhookConfigurationError(
        "KirimbayarModule: inbox.queue has no consume(), so no worker can run on it: give a queue of " +
          "@kirimbayar/inbox (createPgBossInbox, createBullMqInbox), or set inbox.worker to false.",
      );
    }
    const { stopTimeoutMs: _, ...settings } = inbox.worker === false ? {} : (inbox.worker ?? {});
    const { startInboxWorker } = await loadInbox();
    // The same receivers as the webhook routes: the explorer registered the decorated handlers on them at init.
    // The queue's shape was checked above (consume) and when the receivers were built (enqueue).
    return startInboxWorker({ ...settings, inbox: inbox.queue as InboxQueue, receivers: this.#routes.bySource });
  }
}

/** A started inbox worker (`InboxWorker` of `@kirimbayar/inbox`). */
interface RunningWorker {
  stop(options?: { timeoutMs?: number }): Promise<void>;
  abort(): Promise<void>;
}

async function loadInbox(): Promise<typeof import("@kirimbayar/inbox")> {
  try {
    return await import("@kirimbayar/inbox");
  } catch (error) {
    const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
    const missing = code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
    if (!missing || !String(message).includes("@kirimbayar/inbox")) throw error;
    throw new WebhookConfigurationError(
      "KirimbayarModule: inbox is configured but @kirimbayar/inbox is not installed; its worker runs the queued " +
        "events (npm install @kirimbayar/inbox).",
    );
  }
}
