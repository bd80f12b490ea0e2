import type {
  KirimbayarClientName,
  KirimbayarClientsOptions,
  ReconcilerOptions,
  ReconcilerSchedule,
} from "@kirimbayar/core";
import type { WebhookSource, WebhookSourceConfigs } from "@kirimbayar/core/webhooks";
// Types only: `@kirimbayar/inbox` is an optional peer, loaded (lazily) only by apps that configure `inbox`.
import type { InboxQueue, InboxWorkerOptions } from "@kirimbayar/inbox";
import type { KirimbayarConsoleOptions } from "./console-controller.js";

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
}

/** The `inbox` option of {@link KirimbayarModuleOptions}. */
export interface KirimbayarInboxOptions {
  /** The queue: `createPgBossInbox({ boss })` (`@kirimbayar/inbox/pg-boss`) or `createBullMqInbox(...)` (`/bullmq`). */
  queue: InboxQueue;
  /**
   * The worker of this app instance (default: on, with `startInboxWorker`'s defaults). `false`: this instance only
   * enqueues; run the same module with the worker on elsewhere.
   */
  worker?: false | KirimbayarInboxWorkerOptions;
}

/** Settings of the module's inbox worker (see `startInboxWorker` of `@kirimbayar/inbox`). */
export interface KirimbayarInboxWorkerOptions
  extends Pick<InboxWorkerOptions, "concurrency" | "retry" | "logger" | "telemetry"> {
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
   * Serve a webhook console (`createWebhookConsole()` of `@kirimbayar/console`) at its `basePath`, behind the
   * `guards` you name (e.g. your `AuthGuard`), then the console's own `authorize`. Also with `forRootAsync()`: the
   * console is built before the module.
   */
  console?: KirimbayarConsoleOptions;
}
