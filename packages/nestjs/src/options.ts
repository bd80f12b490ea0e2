import type {
  KirimbayarClientName,
  KirimbayarClientsOptions,
  ReconcilerOptions,
  ReconcilerSchedule,
} from "@kirimbayar/core";
import type { WebhookSource, WebhookSourceConfigs } from "@kirimbayar/core/webhooks";

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
  /** Limits of the reconciler: `concurrency`, `minIntervalPerIdMs`, `logger`. */
  reconcileOptions?: Pick<ReconcilerOptions, "concurrency" | "minIntervalPerIdMs" | "logger" | "clock">;
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
}
