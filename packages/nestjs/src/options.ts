import type {
  KirimbayarClientName,
  KirimbayarClientsOptions,
  PendingReference,
  ReconcileResult,
  ReconcilerOptions,
  ReconcilerSchedule,
} from "@kirimbayar/core";
import type {
  AnyLogger,
  InboxMessage,
  KirimbayarTelemetry,
  WebhookInbox,
  WebhookSource,
  WebhookSourceConfigs,
} from "@kirimbayar/core/webhooks";
import type { CanActivate, Type } from "@nestjs/common";

// `@kirimbayar/inbox` and `@kirimbayar/console` are optional peers: what the module takes of them is typed here by
// shape, so an app without them compiles against these declarations (`skipLibCheck: false` included).

/** Options of `KirimbayarModule.forRoot()` (or what the `forRootAsync()` factory returns). */
export interface KirimbayarModuleOptions {
  /** API clients to make injectable by class, e.g. `qris: { apiKey, baseUrl }` provides `QrisClient`. */
  clients?: KirimbayarClientsOptions;
  /** Webhook sources to receive. Each needs at least one decorated handler method and a verification step. */
  webhooks?: WebhookSourceConfigs & {
    /** One path segment per source under `webhookPath`. Defaults: `qris`, `payment`, `orders`. */
    paths?: Partial<Record<WebhookSource, string>>;
  };
  /**
   * Reconcile pending payments on a schedule, started after the app bootstrapped and stopped on shutdown, through
   * the configured `webhooks.qris`/`webhooks.payment` receivers and `clients.qris`/`clients.paymentGateway`
   * (core's `createReconciler`). Use `forRootAsync` to reach your own services from `pending`. Without it,
   * inject `KirimbayarReconciler` and call `reconcile()` from your own scheduler.
   */
  reconcile?: ReconcilerSchedule;
  /**
   * Limits of the reconciler: `concurrency`, `minIntervalPerIdMs`, `logger`; and `journal`, the receivers' delivery
   * journal, to record each run for the webhook console.
   */
  reconcileOptions?: Pick<ReconcilerOptions, "concurrency" | "minIntervalPerIdMs" | "logger" | "clock" | "journal">;
  /**
   * Durable inbox (`@kirimbayar/inbox`): every receiver the module builds writes verified events to `inbox.queue`
   * and answers 200 once written; the module's `KirimbayarInboxWorker` runs them through the decorated handlers,
   * started after the app bootstrapped and stopped when it shuts down. `worker: false` for instances that only
   * enqueue (the web tier), with the worker on in the instances that process.
   */
  inbox?: KirimbayarInboxOptions;
  /**
   * The webhook console to serve: `{ handler }`, the console itself or a function building it from the module's
   * own services (its reconciler, for the console's "reconcile now"). With `forRoot()` give it beside `guards`
   * (`console: { handler, guards }`); with `forRootAsync()` return it from `useFactory` (so it can share the
   * journal, the store and the app's `DataSource` that the factory injects) and give the route where the module is
   * defined: `forRootAsync({ console: { basePath, guards }, inject, useFactory })`.
   */
  console?: KirimbayarConsoleHandler;
}

/**
 * A console the module can serve: a Web `Request → Response` handler for every path under its `basePath`. The
 * webhook console of `@kirimbayar/console` (`createWebhookConsole()`) is one.
 */
export interface MountableConsole {
  /** The path the console answers under (`/kirimbayar/console`); its links and form actions start with it. */
  readonly basePath: string;
  /** Answers one request; the URL is the full one the browser asked for (scheme, host, path, query). */
  fetch(request: Request): Promise<Response>;
}

/** The module's own services a console can use, given to a `console.handler` function. */
export interface KirimbayarConsoleContext {
  /** The module's reconciler (`KirimbayarReconciler`): give it to `createWebhookConsole({ reconciler })`. */
  readonly reconciler: {
    reconcile(references: readonly PendingReference[]): Promise<ReconcileResult[]>;
  };
}

/** The `console` of the module options: the console to serve. */
export interface KirimbayarConsoleHandler {
  /**
   * The console, or a function building it once the module's services exist (called once, at boot), e.g.
   * `({ reconciler }) => createWebhookConsole({ journal, reconciler, authorize, basePath })`.
   */
  handler: MountableConsole | ((module: KirimbayarConsoleContext) => MountableConsole);
}

/**
 * Where the webhook console is served and who may reach it: the `console` read when the module is defined, since
 * Nest fixes routes and guards then. With `forRoot()` it holds the `handler` too; with `forRootAsync()` give
 * `basePath` (and `guards`) here and return the handler from the factory.
 */
export interface KirimbayarConsoleOptions {
  /**
   * The console (`createWebhookConsole()` of `@kirimbayar/console`, or any {@link MountableConsole}), served at its
   * `basePath` (under the app's global prefix, if any: build the console with the prefixed path then).
   * `forRootAsync()`: leave it out and return `console: { handler }` from `useFactory`.
   */
  handler?: KirimbayarConsoleHandler["handler"];
  /**
   * The path the console is served at: the console's own `basePath` (checked at boot). Required with
   * `forRootAsync()`, whose console is built after the routes are fixed; defaults to `handler.basePath` otherwise.
   */
  basePath?: string;
  /**
   * Guards that run before the console, as `@UseGuards()` takes them (classes or instances): e.g. the app's
   * `AuthGuard`. A guard class is the app's own instance when a module of the app registers it (as a provider, or
   * with `@UseGuards()` on one of its controllers); otherwise it is built where the module is configured (see the
   * README). The console's own `authorize` applies as well.
   */
  guards?: readonly (CanActivate | Type<CanActivate>)[];
  /** Largest body read (default 16 384 bytes); past it the request is answered 413 without reaching the console. */
  maxBodyBytes?: number;
}

/** The `inbox` option of {@link KirimbayarModuleOptions}. */
export interface KirimbayarInboxOptions {
  /** The queue: `createPgBossInbox({ boss })` (`@kirimbayar/inbox/pg-boss`) or `createBullMqInbox(...)` (`/bullmq`). */
  queue: KirimbayarInboxQueue;
  /**
   * The worker of this app instance (default: on, with `startInboxWorker`'s defaults). `false`: this instance only
   * enqueues; run the same module with the worker on elsewhere.
   */
  worker?: false | KirimbayarInboxWorkerOptions;
}

/**
 * An inbox queue of `@kirimbayar/inbox` (an `InboxQueue`) as the module takes and hands it back: the receivers write
 * to it, the worker consumes it, and `stats()` and its dead letters serve a health check, an admin route or the
 * console (`createWebhookConsole({ inboxes })`).
 */
export interface KirimbayarInboxQueue extends WebhookInbox {
  /** `"pg-boss"` or `"bullmq"`. */
  readonly engine: string;
  /** The queue's name. */
  readonly name: string;
  /** Starts taking events (the module's worker calls it, through `startInboxWorker`). */
  consume(...args: never[]): Promise<unknown>;
  /** Dead letters, newest first (at most `limit`, default 100). */
  listDeadLetters(options?: { limit?: number }): Promise<readonly KirimbayarDeadLetter[]>;
  /** Queues a dead letter again with a fresh retry period; `false` if there is no such dead letter. */
  replayDeadLetter(id: string): Promise<boolean>;
  /** Counts for dashboards: waiting and active events, dead letters, the oldest waiting event's age (ms). */
  stats(): Promise<{
    readonly waiting: number;
    readonly active: number;
    readonly deadLetters: number;
    readonly oldestWaitingAgeMs: number | undefined;
  }>;
}

/** An event that ran out of tries, kept until replayed (a `DeadLetter` of `@kirimbayar/inbox`). */
export interface KirimbayarDeadLetter {
  /** The engine's id of the dead letter (pass it to `replayDeadLetter`). */
  readonly id: string;
  readonly message: InboxMessage;
  /** Every failed try, oldest first: when (epoch ms), which, and its error. */
  readonly attempts: readonly { readonly at: number; readonly attempt: number; readonly error: string }[];
  /** When it was moved to the dead letters (epoch ms). */
  readonly deadAt: number;
}

/** Settings of the module's inbox worker (see `startInboxWorker` of `@kirimbayar/inbox`). */
export interface KirimbayarInboxWorkerOptions {
  /** Events processed at once (default 10). */
  concurrency?: number;
  /** Backoff and how long to retry before an event becomes a dead letter (default: 1 s doubling to 1 h, 72 h). */
  retry?: {
    /** Delay before the second try (default 1,000 ms); each later delay doubles. */
    baseDelayMs?: number;
    /** Longest delay between two tries (default 1 hour). */
    maxDelayMs?: number;
    /** How long an event is retried, from its arrival or replay (default 72 hours); then it is a dead letter. */
    periodMs?: number;
  };
  /** Told about each retry and dead letter (default `console`): console-style or pino-style. */
  logger?: AnyLogger;
  /** OpenTelemetry: spans and metrics of the worker (see `startInboxWorker`). */
  telemetry?: KirimbayarTelemetry;
  /** How long shutdown waits for the events in flight (default 30 000 ms); the rest come back to the queue later. */
  stopTimeoutMs?: number;
}

/** Options read when the module is defined, before any async factory runs. */
export interface KirimbayarModuleExtras {
  /** Make the clients injectable in every module without importing `KirimbayarModule` there. Default `false`. */
  isGlobal?: boolean;
  /** Route prefix of the webhook controller; default `"webhooks"` (so `POST /webhooks/qris`). */
  webhookPath?: string;
  /**
   * `forRootAsync()` only: the clients to provide, since their options are known only after the factory runs.
   * `forRoot()` provides exactly the clients configured in `clients`.
   */
  provideClients?: readonly KirimbayarClientName[];
  /**
   * Serve a webhook console (`createWebhookConsole()` of `@kirimbayar/console`) behind the `guards` you name (e.g.
   * your `AuthGuard`), then the console's own `authorize`. `forRoot()`: `{ handler, guards }`. `forRootAsync()`:
   * `{ basePath, guards }` here, and `console: { handler }` returned by `useFactory`.
   */
  console?: KirimbayarConsoleOptions;
}
