import {
  type GracefulShutdown,
  type NodeServerLike,
  nodeServerSteps,
  type ShutdownReport,
  type ShutdownSteps,
} from "@kirimbayar/core/shutdown";
import { WebhookConfigurationError } from "@kirimbayar/core/webhooks";
import { type BeforeApplicationShutdown, type DynamicModule, Inject, Injectable, Logger, Module } from "@nestjs/common";
import { HttpAdapterHost, ModuleRef } from "@nestjs/core";
import { KirimbayarInboxWorker } from "./inbox-worker.service.js";
import { KIRIMBAYAR_SHUTDOWN } from "./tokens.js";

export { KIRIMBAYAR_SHUTDOWN };

const logger = new Logger("KirimbayarShutdown");

/**
 * Runs the app's graceful shutdown (`createGracefulShutdown` of `@kirimbayar/core/shutdown`) when Nest shuts down
 * (`app.enableShutdownHooks()` turns SIGTERM into that): in `beforeApplicationShutdown`, so while every provider
 * (the database, the store's client) is still open and before Nest closes the HTTP server itself. It stops the
 * HTTP server from taking connections (the keep-alive ones let go once their response is sent), lets the
 * deliveries in flight finish within the grace period, releases the claims of those still running, and cuts the
 * connections left; an inbox worker of `KirimbayarModule` stops with it. Nest then runs `onApplicationShutdown`,
 * where the app closes its resources.
 *
 * @example
 * constructor(@Inject(KirimbayarShutdown) private readonly shutdown: KirimbayarShutdown) {}
 * get ready() { return this.shutdown.ready }
 */
@Injectable()
export class KirimbayarShutdown implements BeforeApplicationShutdown {
  #report: ShutdownReport | undefined;

  constructor(
    @Inject(KIRIMBAYAR_SHUTDOWN) private readonly shutdown: GracefulShutdown,
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(ModuleRef) private readonly moduleRef: ModuleRef,
  ) {}

  /** `true` until the shutdown begins: serve it as the readiness probe (503 once `false`). */
  get ready(): boolean {
    return this.shutdown.ready;
  }

  /** What the shutdown did, once it ran. */
  get report(): ShutdownReport | undefined {
    return this.#report;
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    logger.log(`Shutting down gracefully${signal === undefined ? "" : ` (${signal})`}`);
    const server = this.adapterHost.httpAdapter?.getHttpServer() as NodeServerLike | undefined;
    const serverSteps: Partial<ShutdownSteps> = server === undefined ? {} : nodeServerSteps(server);
    const worker = this.#inboxWorker();
    this.#report = await this.shutdown.run({
      stop: () => Promise.all([serverSteps.stop?.(), worker?.stop()]),
      abort: () => Promise.all([serverSteps.abort?.(), worker?.abort()]),
    });
    logger.log(`Shutdown drained: ${JSON.stringify(this.#report)}`);
  }

  // The module's inbox worker, when `KirimbayarModule` is imported too (it exports one, running or not).
  #inboxWorker(): KirimbayarInboxWorker | undefined {
    try {
      return this.moduleRef.get(KirimbayarInboxWorker, { strict: false });
    } catch {
      return undefined;
    }
  }
}

/**
 * Adds the graceful shutdown to a NestJS app: import `KirimbayarShutdownModule.forRoot(shutdown)` beside
 * `KirimbayarModule`, give the receivers `shutdown.track(store)` as their store, serve `shutdown.ready` (or
 * `KirimbayarShutdown.ready`) as the readiness probe, and call `app.enableShutdownHooks()`.
 *
 * @example
 * const shutdown = createGracefulShutdown({ graceMs: 10_000 });
 * @Module({
 *   imports: [
 *     KirimbayarShutdownModule.forRoot(shutdown),
 *     KirimbayarModule.forRootAsync({
 *       inject: [DataSource],
 *       useFactory: (dataSource: DataSource) => ({
 *         webhooks: { qris: { verify, idempotency: { store: shutdown.track(storeOn(dataSource)), transactional: true } } },
 *       }),
 *     }),
 *   ],
 * })
 * class AppModule {}
 */
@Module({})
// biome-ignore lint/complexity/noStaticOnlyClass: a Nest dynamic module is a class with a static `forRoot`.
export class KirimbayarShutdownModule {
  /** The module around one `GracefulShutdown`; global, so that any provider can inject it (`KIRIMBAYAR_SHUTDOWN`). */
  static forRoot(shutdown: GracefulShutdown): DynamicModule {
    const candidate = shutdown as Partial<GracefulShutdown> | undefined;
    if (typeof candidate?.run !== "function" || typeof candidate.track !== "function") {
      throw new WebhookConfigurationError(
        "KirimbayarShutdownModule.forRoot(shutdown): pass the object createGracefulShutdown() of " +
          '"@kirimbayar/core/shutdown" returns',
      );
    }
    return {
      module: KirimbayarShutdownModule,
      global: true,
      providers: [{ provide: KIRIMBAYAR_SHUTDOWN, useValue: shutdown }, KirimbayarShutdown],
      exports: [KIRIMBAYAR_SHUTDOWN, KirimbayarShutdown],
    };
  }
}
