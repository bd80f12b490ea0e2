import {
  createReconciler,
  type KirimbayarClients,
  type PendingReference,
  type ReconcileResult,
  type Reconciler,
  type RunningReconciler,
} from "@kirimbayar/core";
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from "@nestjs/common";
import type { KirimbayarModuleOptions } from "./options.js";
import { KIRIMBAYAR_CLIENTS, KIRIMBAYAR_OPTIONS_FOR_RECONCILER, KIRIMBAYAR_WEBHOOK_ROUTES } from "./tokens.js";
import type { WebhookRoutes } from "./webhook-routes.js";

/**
 * The reconciler of the module's receivers and clients (`createReconciler` from core), injectable as
 * `KirimbayarReconciler`. With `reconcile: { every, pending }` in the module options it starts once the app has
 * bootstrapped and stops (after the run in flight) when the app shuts down (`app.enableShutdownHooks()` for
 * signals); without them it only offers `reconcile(references)` for your own scheduler.
 *
 * @example
 * constructor(@Inject(KirimbayarReconciler) private readonly reconciler: KirimbayarReconciler) {}
 * await this.reconciler.reconcile([{ source: "qris", history_id: order.historyId }]);
 */
@Injectable()
export class KirimbayarReconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly #options: KirimbayarModuleOptions;
  readonly #routes: WebhookRoutes;
  readonly #clients: Partial<KirimbayarClients>;
  #reconciler: Reconciler | undefined;
  #running: RunningReconciler | undefined;

  constructor(
    @Inject(KIRIMBAYAR_OPTIONS_FOR_RECONCILER) options: KirimbayarModuleOptions,
    @Inject(KIRIMBAYAR_WEBHOOK_ROUTES) routes: WebhookRoutes,
    @Inject(KIRIMBAYAR_CLIENTS) clients: Partial<KirimbayarClients>,
  ) {
    this.#options = options;
    this.#routes = routes;
    this.#clients = clients;
  }

  /** Reconciles `references` once (see core's `Reconciler.reconcile`). */
  reconcile(references: readonly PendingReference[]): Promise<ReconcileResult[]> {
    return this.#get().reconcile(references);
  }

  onApplicationBootstrap(): void {
    const schedule = this.#options.reconcile;
    if (schedule === undefined) return;
    this.#running = this.#get().start(schedule);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.#running?.stop();
    this.#running = undefined;
  }

  // Built on first use, after the handler explorer has registered the decorated handlers on the receivers.
  #get(): Reconciler {
    const { qris, payment } = this.#routes.bySource;
    this.#reconciler ??= createReconciler({
      receivers: { ...(qris === undefined ? {} : { qris }), ...(payment === undefined ? {} : { payment }) },
      clients: {
        ...(this.#clients.qris === undefined ? {} : { qris: this.#clients.qris }),
        ...(this.#clients.paymentGateway === undefined ? {} : { payment: this.#clients.paymentGateway }),
      },
      ...this.#options.reconcileOptions,
    });
    return this.#reconciler;
  }
}
