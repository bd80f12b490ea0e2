// KirimbayarModule in inbox mode over real HTTP, on a real queue: the pg-boss engine of @kirimbayar/inbox on a
// PostgreSQL server started for this file. Deliveries are answered once queued; the module's worker, started and
// stopped with the app, runs them through the decorated handlers.
import "reflect-metadata";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { inboxStage } from "@kirimbayar/core";
import { tokenVerifier, WebhookConfigurationError, type WebhookContext } from "@kirimbayar/core/webhooks";
import type { InboxQueue } from "@kirimbayar/inbox";
import { createPgBossInbox } from "@kirimbayar/inbox/pg-boss";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import { type INestApplicationContext, Inject, Injectable, Module } from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import { FastifyAdapter, type NestFastifyApplication } from "@nestjs/platform-fastify";
import { Test } from "@nestjs/testing";
import PgBoss from "pg-boss";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { KirimbayarInboxWorker, KirimbayarModule, type KirimbayarModuleOptions, OnQrisEvent } from "../src/index.js";
import { qrisPaidBody } from "./support/qris.js";

const TOKEN = "nest-inbox-token";
const quiet = { warn: () => {}, error: () => {} };
const qris = { verify: [tokenVerifier({ secrets: [TOKEN], in: "query" })], logger: quiet };

/** Every event the decorated handler ran, with where it came from. */
const seen: { id: string; origin: string | undefined }[] = [];
const runsOf = (id: string) => seen.filter((run) => run.id === id);

@Injectable()
class PaymentEvents {
  @OnQrisEvent("payment.success")
  paid(event: { data: { qris_history_id: string | number } }, ctx: WebhookContext) {
    seen.push({ id: String(event.data.qris_history_id), origin: ctx.origin });
  }
}

let postgres: TestPostgresServer;
let boss: PgBoss;
const queues: InboxQueue[] = [];
let queueCount = 0;

/** A fresh queue (its own name) on the shared pg-boss. */
async function newQueue(): Promise<InboxQueue> {
  const queue = await createPgBossInbox({
    boss,
    name: `nestjs-inbox-${process.pid}-${++queueCount}`,
    pollingIntervalMs: 100,
  });
  queues.push(queue);
  return queue;
}

beforeAll(async () => {
  postgres = await startPostgresServer();
  boss = new PgBoss({ connectionString: postgres.url, max: 8, maintenanceIntervalSeconds: 1 });
  boss.on("error", () => {});
  await boss.start();
}, 60_000);

afterAll(async () => {
  await Promise.all(queues.map((queue) => queue.close().catch(() => {})));
  await boss?.stop({ graceful: false, wait: true, timeout: 2_000 }).catch(() => {});
  await postgres?.destroy();
}, 30_000);

/** Apps and contexts still open when a test ends (a failed one included). */
const opened: INestApplicationContext[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((app) => app.close()));
});

type Platform = "express" | "fastify";

/** Boots an app with `imports` and the handler provider on `platform`, listening on a free loopback port. */
async function boot(imports: unknown[], platform: Platform = "express") {
  const moduleRef = await Test.createTestingModule({
    imports: imports as never[],
    providers: [PaymentEvents],
  }).compile();
  const app =
    platform === "express"
      ? moduleRef.createNestApplication({ rawBody: true, logger: false })
      : moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
  opened.push(app);
  await app.listen(0, "127.0.0.1");
  const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}/webhooks/qris` };
}

/** Posts a QRIS `payment.success` for history id `id` to `url`, with `token` in the query. */
async function post(url: string, id: string, token = TOKEN): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}?token=${token}`, {
    method: "POST",
    headers: { "content-type": "application/json", connection: "close" },
    body: qrisPaidBody(id),
  });
  return { status: response.status, body: await response.json() };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (up to 10 s) until the handler ran for `id`. */
async function ranFor(id: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (runsOf(id).length === 0 && Date.now() < deadline) await sleep(25);
}

/** Long enough for several polls of an idle worker (every 100 ms here): what it would take, it would have. */
const QUIET_PERIOD_MS = 700;

let ids = 0;
const newId = () => `h-${process.pid}-${++ids}`;

describe.each(["express", "fastify"] as const)("KirimbayarModule inbox on %s", (platform) => {
  it("answers a delivery 200 once queued, runs the decorated handler once in the worker, never a duplicate or a forgery", async () => {
    const queue = await newQueue();
    const { app, url } = await boot(
      [KirimbayarModule.forRoot({ webhooks: { qris }, inbox: { queue, worker: { logger: quiet } } })],
      platform,
    );
    expect(app.get(KirimbayarInboxWorker).running).toBe(true);
    const id = newId();
    const forgedId = newId();

    expect(await post(url, id)).toEqual({ status: 200, body: { success: true, message: "Webhook queued" } });
    const again = await post(url, id); // while queued or just run: pg-boss keeps the job, so no second one
    expect(again.status).toBe(200);
    expect(await post(url, forgedId, "forged")).toMatchObject({ status: 401, body: { success: false } });

    await ranFor(id);
    expect(runsOf(id)).toEqual([{ id, origin: "inbox" }]);
    // A redelivery once it ran is no second run either.
    expect((await post(url, id)).status).toBe(200);
    await sleep(QUIET_PERIOD_MS);
    expect(runsOf(id)).toHaveLength(1);
    expect(runsOf(forgedId)).toEqual([]);
    expect(await queue.stats()).toMatchObject({ waiting: 0, active: 0, deadLetters: 0 });
  });
});

describe("KirimbayarModule inbox worker", () => {
  it("with worker: false only queues (a forgery not even that); a worker instance of the same module runs it", async () => {
    const queue = await newQueue();
    const { app, url } = await boot([
      KirimbayarModule.forRoot({ webhooks: { qris }, inbox: { queue, worker: false } }),
    ]);
    const id = newId();
    expect(await post(url, id)).toEqual({ status: 200, body: { success: true, message: "Webhook queued" } });
    expect((await post(url, newId(), "forged")).status).toBe(401);
    await sleep(QUIET_PERIOD_MS);
    expect(runsOf(id)).toEqual([]);
    expect(app.get(KirimbayarInboxWorker).running).toBe(false);
    expect(await queue.stats()).toMatchObject({ waiting: 1, active: 0 });

    // A worker instance: the same module and handlers, no HTTP server.
    @Module({
      imports: [KirimbayarModule.forRoot({ webhooks: { qris }, inbox: { queue, worker: { logger: quiet } } })],
      providers: [PaymentEvents],
    })
    class WorkerModule {}
    const worker = await NestFactory.createApplicationContext(WorkerModule, { logger: false });
    opened.push(worker);
    await ranFor(id);
    expect(runsOf(id)).toEqual([{ id, origin: "inbox" }]);
    expect(worker.get(KirimbayarInboxWorker).running).toBe(true);
    expect(await queue.stats()).toMatchObject({ waiting: 0, active: 0, deadLetters: 0 });
  });

  it("stops with the app: after app.close() it takes no event, which the next instance then runs", async () => {
    const queue = await newQueue();
    const options: KirimbayarModuleOptions = { webhooks: { qris }, inbox: { queue, worker: { logger: quiet } } };
    const first = await boot([KirimbayarModule.forRoot(options)]);
    const before = newId();
    expect((await post(first.url, before)).status).toBe(200);
    await ranFor(before);
    expect(runsOf(before)).toHaveLength(1);

    const inboxWorker = first.app.get(KirimbayarInboxWorker);
    await first.app.close();
    expect(inboxWorker.running).toBe(false);
    // Queued while no worker runs (as a web instance would queue it).
    const after = newId();
    await queue.enqueue({
      key: `qris:test:${after}`,
      source: "qris",
      body: qrisPaidBody(after),
      receivedAt: Date.now(),
    });
    await sleep(QUIET_PERIOD_MS);
    expect(runsOf(after)).toEqual([]);
    expect(await queue.stats()).toMatchObject({ waiting: 1, active: 0 });

    await boot([KirimbayarModule.forRoot(options)]);
    await ranFor(after);
    expect(runsOf(after)).toEqual([{ id: after, origin: "inbox" }]);
    expect(await queue.stats()).toMatchObject({ waiting: 0, active: 0, deadLetters: 0 });
  });

  it("takes the queue from a forRootAsync factory (a config provider injected into it)", async () => {
    @Injectable()
    class InboxConfig {
      readonly queueName = `nestjs-inbox-async-${process.pid}`;
      readonly concurrency = 2;
    }
    @Module({ providers: [InboxConfig], exports: [InboxConfig] })
    class InboxConfigModule {}

    let created: InboxQueue | undefined;
    const { app, url } = await boot([
      KirimbayarModule.forRootAsync({
        imports: [InboxConfigModule],
        inject: [InboxConfig],
        useFactory: async (config: InboxConfig) => {
          created = await createPgBossInbox({ boss, name: config.queueName, pollingIntervalMs: 100 });
          queues.push(created);
          return {
            webhooks: { qris },
            inbox: { queue: created, worker: { concurrency: config.concurrency, logger: quiet } },
          };
        },
      }),
    ]);
    const worker = app.get(KirimbayarInboxWorker);
    expect(worker.queue).toBe(created);
    expect(worker.running).toBe(true);
    const id = newId();
    expect(await post(url, id)).toEqual({ status: 200, body: { success: true, message: "Webhook queued" } });
    await ranFor(id);
    expect(runsOf(id)).toEqual([{ id, origin: "inbox" }]);
  });

  it("is injectable into the app's own providers", async () => {
    @Injectable()
    class Health {
      constructor(@Inject(KirimbayarInboxWorker) readonly inbox: KirimbayarInboxWorker) {}
    }
    const queue = await newQueue();
    const moduleRef = await Test.createTestingModule({
      imports: [KirimbayarModule.forRoot({ webhooks: { qris }, inbox: { queue, worker: false } })],
      providers: [PaymentEvents, Health],
    }).compile();
    const app = moduleRef.createNestApplication({ rawBody: true, logger: false });
    opened.push(app);
    await app.init();
    expect(app.get(Health).inbox.queue).toBe(queue);
    expect(await app.get(Health).inbox.queue?.stats()).toMatchObject({ waiting: 0, deadLetters: 0 });
  });
});

describe("KirimbayarModule inbox boot checks", () => {
  // Structural stand-ins: these apps never reach a queue.
  const fakeQueue = (): InboxQueue => ({ inboxStage, enqueue: async () => "queued" }) as unknown as InboxQueue;

  async function bootError(options: KirimbayarModuleOptions): Promise<Error> {
    const outcome = await boot([KirimbayarModule.forRoot(options)]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(outcome).toBeInstanceOf(WebhookConfigurationError);
    return outcome as Error;
  }

  it("fails when inbox is configured without webhooks", async () => {
    const error = await bootError({ inbox: { queue: fakeQueue() } });
    expect(error.message).toMatch(/inbox is configured but no webhooks are/);
  });

  it("fails when inbox.queue is not a queue", async () => {
    const error = await bootError({ webhooks: { qris }, inbox: { queue: {} as InboxQueue } });
    expect(error.message).toMatch(/inbox\.queue must be an inbox queue/);
  });

  it("fails when a source names another queue than inbox.queue", async () => {
    const error = await bootError({
      webhooks: { qris: { ...qris, inbox: fakeQueue() } },
      inbox: { queue: fakeQueue() },
    });
    expect(error.message).toMatch(/webhooks\.qris\.inbox is another queue than inbox\.queue/);
  });

  it("fails when the worker is on and the queue cannot be consumed", async () => {
    const error = await bootError({ webhooks: { qris }, inbox: { queue: fakeQueue() } });
    expect(error.message).toMatch(/inbox\.queue has no consume\(\)/);
  });
});
