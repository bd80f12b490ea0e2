// The console from dependency injection (issue 38 item 4), in real Nest apps over HTTP on Express and on Fastify:
// guards with injected dependencies resolved from the app's modules, and a console, a journal and an idempotency
// store built in forRootAsync from the app's TypeORM DataSource (TypeOrmModule) on a real PostgreSQL.
import "reflect-metadata";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createWebhookConsole } from "@kirimbayar/console";
import { ConfigurationError, QrisClient } from "@kirimbayar/core";
import { PostgresDeliveryJournal, PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { typeormBinding } from "@kirimbayar/core/typeorm";
import { type QrisPaymentSuccessEvent, tokenVerifier, type WebhookContext } from "@kirimbayar/core/webhooks";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import { createFakeProvider, createStandInConsole, STAND_IN_CONSOLE } from "@kirimbayar/testing";
import {
  type CanActivate,
  Controller,
  type DynamicModule,
  type ExecutionContext,
  Get,
  type INestApplication,
  Inject,
  Injectable,
  Module,
  UseGuards,
} from "@nestjs/common";
import { FastifyAdapter, type NestFastifyApplication } from "@nestjs/platform-fastify";
import { Test } from "@nestjs/testing";
import { TypeOrmModule } from "@nestjs/typeorm";
import pg from "pg";
import { DataSource, type EntityManager } from "typeorm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { KirimbayarModule, KirimbayarReconciler, OnQrisEvent } from "../src/index.js";
import { postQrisPaid } from "./support/qris.js";

type Platform = "express" | "fastify";
const platforms: Platform[] = ["express", "fastify"];

/** The app's configuration, as apps provide it: a token their guards inject. */
const APP_CONFIG = Symbol("APP_CONFIG");
interface AppConfig {
  adminKey: string;
  /** How many times a guard consulted it: which instance of a guard ran is told by the config it was built with. */
  checks: number;
}

/** The app's own guard, with an injected dependency (the case of issue 38: `AdminGuard (?) … Symbol(APP_CONFIG)`). */
@Injectable()
class AdminGuard implements CanActivate {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    this.config.checks += 1;
    const request = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>();
    return request.headers["x-admin-key"] === this.config.adminKey;
  }
}

/** A module of the app owning its configuration, as a ConfigModule would. */
function configModule(config: AppConfig): DynamicModule {
  @Module({ providers: [{ provide: APP_CONFIG, useValue: config }], exports: [APP_CONFIG] })
  class ConfigModule {}
  return { module: ConfigModule };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** Boots `root` on `platform`, listening on a free loopback port. */
async function boot(root: unknown, platform: Platform): Promise<{ app: INestApplication; origin: string }> {
  const moduleRef = await Test.createTestingModule({ imports: [root as never] }).compile();
  const app =
    platform === "express"
      ? moduleRef.createNestApplication({ logger: false, rawBody: true })
      : moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
  close = () => app.close();
  await app.listen(0, "127.0.0.1");
  return { app, origin: `http://127.0.0.1:${((app.getHttpServer() as Server).address() as AddressInfo).port}` };
}

const { basePath, authorization } = STAND_IN_CONSOLE;

/** The console's status for a request with (or without) the admin key the guard checks. */
async function consoleStatus(origin: string, adminKey?: string): Promise<number> {
  const headers: Record<string, string> = { authorization };
  if (adminKey !== undefined) headers["x-admin-key"] = adminKey;
  return (await fetch(`${origin}${basePath}/search?q=ORD-1`, { headers })).status;
}

describe.each(platforms)("console guards with injected dependencies, resolved from the app (%s)", (platform) => {
  it("builds the guard where KirimbayarModule is imported: the app module's ConfigModule (forRoot)", async () => {
    const config = { adminKey: "k-1", checks: 0 };
    @Module({
      imports: [
        configModule(config),
        KirimbayarModule.forRoot({ console: { handler: createStandInConsole(), guards: [AdminGuard] } }),
      ],
    })
    class AppModule {}
    const { origin } = await boot(AppModule, platform);
    expect(await consoleStatus(origin)).toBe(403);
    expect(await consoleStatus(origin, "wrong")).toBe(403);
    expect(await consoleStatus(origin, "k-1")).toBe(200);
    expect(config.checks).toBe(3);
  });

  it("uses the app's own instance of a guard its controllers use, with its module's dependencies", async () => {
    const appConfig = { adminKey: "k-app", checks: 0 };
    const authConfig = { adminKey: "k-auth", checks: 0 };
    @Controller("admin")
    @UseGuards(AdminGuard)
    class AdminController {
      @Get("ping")
      ping() {
        return { ok: true };
      }
    }
    // The guard's own module has another configuration than the module that imports KirimbayarModule.
    @Module({ imports: [configModule(authConfig)], controllers: [AdminController] })
    class AuthModule {}
    @Module({
      imports: [
        configModule(appConfig),
        AuthModule,
        KirimbayarModule.forRootAsync({
          useFactory: () => ({ console: { handler: createStandInConsole() } }),
          console: { basePath, guards: [AdminGuard] },
        }),
      ],
    })
    class AppModule {}
    const { origin } = await boot(AppModule, platform);
    expect(await consoleStatus(origin, "k-app")).toBe(403);
    expect(await consoleStatus(origin, "k-auth")).toBe(200);
    expect((await fetch(`${origin}/admin/ping`, { headers: { "x-admin-key": "k-auth" } })).status).toBe(200);
    expect(authConfig.checks).toBe(3);
    expect(appConfig.checks).toBe(0);
  });

  it("builds the guard from forRootAsync's imports when no module of the app can", async () => {
    const config = { adminKey: "k-imports", checks: 0 };
    const kirimbayar = KirimbayarModule.forRootAsync({
      imports: [configModule(config)],
      useFactory: () => ({ console: { handler: createStandInConsole() } }),
      console: { basePath, guards: [AdminGuard] },
    });
    @Module({ imports: [kirimbayar] })
    class FeatureModule {}
    @Module({ imports: [FeatureModule] })
    class AppModule {}
    const { origin } = await boot(AppModule, platform);
    expect(await consoleStatus(origin)).toBe(403);
    expect(await consoleStatus(origin, "k-imports")).toBe(200);
  });

  it("fails the boot naming the guard and the fix when nothing can build it", async () => {
    @Module({
      imports: [KirimbayarModule.forRoot({ console: { handler: createStandInConsole(), guards: [AdminGuard] } })],
    })
    class AppModule {}
    const failure = await boot(AppModule, platform).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConfigurationError);
    expect((failure as ConfigurationError).option).toBe("console.guards");
    expect((failure as Error).message).toMatch(/guard AdminGuard cannot be built: Nest can't resolve dependencies/);
    expect((failure as Error).message).toContain("providers: [AdminGuard]");
  });
});

describe("console options checked at boot", () => {
  const compile = (root: unknown) =>
    Test.createTestingModule({ imports: [root as never] })
      .compile()
      .then(
        () => undefined,
        (error: unknown) => error as ConfigurationError,
      );

  it("refuses forRootAsync's console without the path it is routed at, when the module is defined", () => {
    expect(() =>
      KirimbayarModule.forRootAsync({ useFactory: () => ({}), console: { guards: [AdminGuard] } }),
    ).toThrowError(expect.objectContaining({ option: "console.basePath" }));
  });

  it("still serves a console given where forRootAsync is called, and refuses a second one from useFactory", async () => {
    const { origin } = await boot(
      KirimbayarModule.forRootAsync({ useFactory: () => ({}), console: { handler: createStandInConsole() } }),
      "express",
    );
    expect((await fetch(`${origin}${basePath}/search?q=1`, { headers: { authorization } })).status).toBe(200);
    const twice = await compile(
      KirimbayarModule.forRootAsync({
        useFactory: () => ({ console: { handler: createStandInConsole() } }),
        console: { handler: createStandInConsole() },
      }),
    );
    expect(twice?.option).toBe("console.handler");
    expect(twice?.message).toContain("give it once");
  });

  it("refuses a console built with another basePath than its route", async () => {
    const failure = await compile(
      KirimbayarModule.forRootAsync({
        useFactory: () => ({ console: { handler: createStandInConsole() } }),
        console: { basePath: "/admin/console" },
      }),
    );
    expect(failure).toBeInstanceOf(ConfigurationError);
    expect(failure?.message).toMatch(/routed at \/admin\/console but was built with basePath \/kirimbayar\/console/);
  });

  it("refuses a route without a console, a console without a route, and a handler that is no console", async () => {
    const noHandler = await compile(KirimbayarModule.forRootAsync({ useFactory: () => ({}), console: { basePath } }));
    expect(noHandler?.option).toBe("console.handler");
    expect(noHandler?.message).toContain("return console: { handler } from useFactory");
    const noRoute = await compile(
      KirimbayarModule.forRootAsync({ useFactory: () => ({ console: { handler: createStandInConsole() } }) }),
    );
    expect(noRoute?.option).toBe("console");
    expect(noRoute?.message).toContain("forRootAsync({ console: { basePath, guards }, useFactory })");
    const notAConsole = await compile(
      KirimbayarModule.forRootAsync({
        useFactory: () => ({ console: { handler: { basePath } as never } }),
        console: { basePath },
      }),
    );
    expect(notAConsole?.option).toBe("console.handler");
    expect(() =>
      KirimbayarModule.forRoot({ console: { handler: createStandInConsole(), guards: ["AdminGuard" as never] } }),
    ).toThrowError(expect.objectContaining({ option: "console.guards" }));
  });
});

describe.each(platforms)(
  "a console, a journal and a store from forRootAsync on the app's DataSource (%s)",
  (platform) => {
    const TOKEN = `nest-di-token-${platform}`;
    const CONSOLE_PATH = "/admin/kirimbayar";
    let postgres: TestPostgresServer;
    let checker: pg.Client;

    beforeAll(async () => {
      postgres = await startPostgresServer();
      checker = new pg.Client({ connectionString: postgres.url, application_name: "kb-test-checker" });
      await checker.connect();
      await checker.query("CREATE TABLE orders (qris_history_id text PRIMARY KEY, status text NOT NULL)");
    }, 60_000);

    afterAll(async () => {
      await checker?.end();
      await postgres?.destroy();
    }, 30_000);

    @Injectable()
    class PaymentEvents {
      @OnQrisEvent("payment.success")
      async paid(event: QrisPaymentSuccessEvent, ctx: WebhookContext<EntityManager>) {
        // Through the delivery's EntityManager: commits with the event's record, or not at all.
        await ctx.transaction.query("UPDATE orders SET status = 'paid' WHERE qris_history_id = $1", [
          String(event.data.qris_history_id),
        ]);
      }
    }

    /** What the console handler function was given: the module's own reconciler. */
    const given: { reconciler?: unknown } = {};

    function appModule(config: AppConfig, provider = createFakeProvider()): DynamicModule {
      @Module({
        imports: [
          TypeOrmModule.forRoot({ type: "postgres", url: postgres.url, applicationName: "kb-nest-app" }),
          configModule(config),
          KirimbayarModule.forRootAsync({
            inject: [DataSource],
            useFactory: async (dataSource: DataSource) => {
              const binding = typeormBinding(dataSource);
              const store = new PostgresIdempotencyStore({ binding });
              const journal = new PostgresDeliveryJournal({ binding });
              await store.ensureSchema();
              await journal.ensureSchema();
              return {
                clients: {
                  qris: { apiKey: provider.apiKeys.qris[0] ?? "", baseUrl: provider.baseUrl, fetch: provider.fetch },
                },
                webhooks: {
                  qris: {
                    verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
                    idempotency: { store, transactional: true },
                    journal,
                    logger: { warn: () => {}, error: () => {} },
                  },
                },
                reconcileOptions: { journal },
                console: {
                  handler: ({ reconciler }) => {
                    given.reconciler = reconciler;
                    return createWebhookConsole({
                      journal,
                      reconciler,
                      stores: { qris: store },
                      basePath: CONSOLE_PATH,
                      authorize: (request) => request.headers.get("x-operator") ?? false,
                    });
                  },
                },
              };
            },
            console: { basePath: CONSOLE_PATH, guards: [AdminGuard] },
          }),
        ],
        providers: [PaymentEvents],
      })
      class AppModule {}
      return { module: AppModule };
    }

    it("journals a delivery that commits through the DataSource, and serves it behind the app's guard", async () => {
      const id = `DI-${platform}-1`;
      await checker.query("INSERT INTO orders VALUES ($1, 'pending')", [id]);
      const config = { adminKey: "admin-key", checks: 0 };
      const { app, origin } = await boot(appModule(config), platform);

      const delivery = await postQrisPaid(origin, TOKEN, id);
      expect(delivery.status).toBe(200);
      expect((await checker.query("SELECT status FROM orders WHERE qris_history_id = $1", [id])).rows).toEqual([
        { status: "paid" },
      ]);
      // The transactional delivery wrote its journal entry in its own transaction: it is there once answered.
      const entries = await checker.query(
        "SELECT outcome, http_status FROM kirimbayar_delivery_journal WHERE qris_history_id = $1",
        [id],
      );
      expect(entries.rows).toEqual([{ outcome: "processed", http_status: 200 }]);

      const search = `${origin}${CONSOLE_PATH}/search?q=${id}`;
      expect((await fetch(search, { headers: { "x-operator": "ops" } })).status).toBe(403);
      const page = await fetch(search, { headers: { "x-operator": "ops", "x-admin-key": "admin-key" } });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain(id);
      expect(html).toContain("processed");
      expect(config.checks).toBe(2);

      // The console got the module's own reconciler, and nothing but the app's DataSource talks to the database.
      expect(given.reconciler).toBe(app.get(KirimbayarReconciler));
      const others = await checker.query(
        `SELECT DISTINCT application_name FROM pg_stat_activity
        WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND datname IS NOT NULL`,
      );
      expect(others.rows).toEqual([{ application_name: "kb-nest-app" }]);
    });

    it("reconciles a payment whose webhook never came from the console, through the module's reconciler", async () => {
      const provider = createFakeProvider();
      const config = { adminKey: "admin-key", checks: 0 };
      const { origin } = await boot(appModule(config, provider), platform);
      const qris = new QrisClient({
        apiKey: provider.apiKeys.qris[0] ?? "",
        baseUrl: provider.baseUrl,
        fetch: provider.fetch,
      });
      const generated = await qris.generateQris({ qris_id: 1, amount: 75_000, output_type: "string" });
      const id = String(generated.data.history_id);
      await checker.query("INSERT INTO orders VALUES ($1, 'pending')", [id]);
      await provider.qris.pay(id); // no webhook URL is set: the payment's webhook never comes

      const staff = { "x-operator": "ops", "x-admin-key": "admin-key" };
      const page = await (await fetch(`${origin}${CONSOLE_PATH}/search?q=${id}`, { headers: staff })).text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
      expect(csrf).toBeDefined();
      const answer = await fetch(`${origin}${CONSOLE_PATH}/actions/reconcile`, {
        method: "POST",
        redirect: "manual",
        headers: {
          ...staff,
          origin,
          "sec-fetch-site": "same-origin",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ csrf: csrf ?? "", source: "qris", reference: id }).toString(),
      });
      expect(answer.status).toBe(303);
      expect(answer.headers.get("location")).toBe(`${CONSOLE_PATH}/search?q=${id}&notice=reconcile_applied`);
      // Applied by the decorated handler, in a transaction of the app's DataSource.
      expect((await checker.query("SELECT status FROM orders WHERE qris_history_id = $1", [id])).rows).toEqual([
        { status: "paid" },
      ]);
    });
  },
);
